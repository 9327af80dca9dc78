"""Each tenant's share of the embedded server's workers.

The per-token rate (12,000 a minute by default) is far more than two cores can answer, so a
tenant within it could keep every worker busy and every other tenant's search waiting its turn
for the CPU (measured: 7x slower at p50). While more than one tenant has requests in the
server, the gate lets `running` requests of each tenant run at once; up to `queued` more wait
their turn (holding a worker while they wait, so the queue is bounded to leave workers for the
other tenants); past that a request is refused with 429 and Retry-After, as the rate limit
refuses. A tenant alone is not held back: the usual laptop, one tenant, keeps every worker, and
the moment another tenant's request comes in, the share applies to both, and goes on applying
for `GRACE_SECONDS` after that tenant's last request ends: a client that searches one request
at a time is between requests most of the time, and the busy tenant must not take every worker
back in each gap.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

logger = logging.getLogger(__name__)

GRACE_SECONDS = 2.0


class TenantBusy(Exception):
    """The tenant has as many requests running and waiting as it may."""


class TenantGate:
    def __init__(
        self,
        running: int,
        queued: int,
        wait_seconds: float = 30.0,
        grace_seconds: float = GRACE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._running = running
        self._grace = grace_seconds
        self._clock = clock
        self._last_seen: dict[str, float] = {}  # when each tenant's last request ended
        self._admitted_cap = running + queued
        self._wait = wait_seconds
        self._changed = threading.Condition()
        self._admitted: dict[str, int] = {}  # running and waiting, by tenant
        self._runs: dict[str, int] = {}  # running, by tenant

    def _shared(self, tenant: str) -> bool:
        if any(other != tenant for other in self._admitted):
            return True
        since = self._clock() - self._grace
        for other, seen in list(self._last_seen.items()):
            if seen < since:
                del self._last_seen[other]  # gone quiet: it no longer counts
            elif other != tenant:
                return True
        return False

    def _may_run(self, tenant: str) -> bool:
        return self._runs.get(tenant, 0) < self._running or not self._shared(tenant)

    @contextmanager
    def turn(self, tenant: str) -> Iterator[None]:
        """Run the body once the tenant may, waiting for its turn; TenantBusy when the
        tenant's share of waiting requests is full or its turn did not come in time."""
        with self._changed:
            admitted = self._admitted.get(tenant, 0)
            if admitted >= self._admitted_cap and self._shared(tenant):
                raise TenantBusy(tenant)
            self._admitted[tenant] = admitted + 1
            try:
                deadline = self._clock() + self._wait
                while not self._may_run(tenant):
                    left = deadline - self._clock()
                    if left <= 0:
                        logger.warning("tenant request waited too long", extra={"tenant": tenant})
                        raise TenantBusy(tenant)
                    # Woken by a request ending; and at least once a grace, as one may end it.
                    self._changed.wait(min(left, self._grace))
                self._runs[tenant] = self._runs.get(tenant, 0) + 1
            except BaseException:
                self._leave(tenant)
                raise
        try:
            yield
        finally:
            with self._changed:
                self._runs[tenant] -= 1
                if not self._runs[tenant]:
                    del self._runs[tenant]
                self._leave(tenant)

    def _leave(self, tenant: str) -> None:
        # Called holding the condition's lock.
        self._last_seen[tenant] = self._clock()
        self._admitted[tenant] -= 1
        if not self._admitted[tenant]:
            del self._admitted[tenant]  # a tenant gone costs nothing
        self._changed.notify_all()
