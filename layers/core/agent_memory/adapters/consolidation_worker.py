"""The embedded shape's consolidation worker: one thread that every few minutes consolidates
the agents whose harness.memory.consolidation.every has come round (the cloud shape runs no
such thread: its scheduled state machine runs each due agent as a task, see
adapters/consolidation_steps.py and docs/memory-over-time.md)."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING

from ..domain.extraction.consolidation import ConsolidationService
from ..domain.extraction.consolidation_schedule import run_due
from ..domain.extraction.ports import ConsolidationSchedule
from ..domain.kernel.errors import StorageUnavailable
from .background import BackgroundLoop

if TYPE_CHECKING:
    from ..domain.store import Store

logger = logging.getLogger(__name__)


class ConsolidationWorker(BackgroundLoop):
    thread_name = "agent-memory-consolidation"

    def __init__(
        self,
        store: Store,
        schedule: ConsolidationSchedule,
        service: ConsolidationService,
        every_seconds: float,
    ) -> None:
        super().__init__()
        self._store = store
        self._schedule = schedule
        self._service = service
        self._every = every_seconds

    def run_due(self, now: datetime | None = None) -> list[str]:
        """Consolidate the agents due at `now` in this thread (tests, the CLI); the run ids."""
        return run_due(self._store, self._schedule, self._service, now)

    def _loop(self) -> None:
        while not self._stop.wait(self._every):
            try:
                self.run_due()
            except StorageUnavailable:
                # The file busy or gone for a moment: the next check finds the same agents due.
                logger.warning("scheduled consolidations failed; trying again", exc_info=True)
