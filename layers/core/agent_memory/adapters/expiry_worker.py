"""The embedded shape's expiry worker: one thread running the sweeper every few seconds (the
cloud leaves the purge to DynamoDB's TTL and needs no such thread)."""

from __future__ import annotations

import logging
from datetime import datetime

from ..domain.kernel.errors import StorageUnavailable
from ..domain.records.sweeper import ExpirySweeper, SweepCounts
from .background import BackgroundLoop

logger = logging.getLogger(__name__)


class ExpiryWorker(BackgroundLoop):
    thread_name = "agent-memory-expiry"

    def __init__(self, sweeper: ExpirySweeper, every_seconds: float) -> None:
        super().__init__()
        self._sweeper = sweeper
        self._every = every_seconds

    def sweep(self, now: datetime | None = None) -> SweepCounts:
        """One sweep in this thread, as of `now` (the clock when not given): tests, the CLI."""
        return self._sweeper.sweep(now)

    def _loop(self) -> None:
        while not self._stop.wait(self._every):
            try:
                self._sweeper.sweep()
            except StorageUnavailable:
                # The file busy or gone for a moment: the next sweep finds the same records.
                logger.warning("expiry sweep failed; trying again", exc_info=True)
