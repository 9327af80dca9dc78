"""Each tenant's share of the embedded server's workers.

The per-token rate (12,000 a minute by default) is far more than two cores can answer, so a
tenant within it could keep every worker busy and every other tenant's search waiting its turn
for the CPU (measured: 7x slower at p50). The gate lets `running` requests of one tenant run at
once; up to `queued` more wait their turn (holding a worker while they wait, so the queue is
bounded to leave workers for other tenants); past that a request is refused with 429 and
Retry-After, as the rate limit refuses. A tenant alone still gets the whole machine: its
`running` requests use both cores, and the queue keeps it busy.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

logger = logging.getLogger(__name__)


class TenantBusy(Exception):
    """The tenant has as many requests running and waiting as it may."""


class TenantGate:
    def __init__(self, running: int, queued: int, wait_seconds: float = 30.0) -> None:
        self._running = running
        self._admitted_cap = running + queued
        self._wait = wait_seconds
        self._lock = threading.Lock()
        self._slots: dict[str, threading.Semaphore] = {}
        self._admitted: dict[str, int] = {}

    @contextmanager
    def turn(self, tenant: str) -> Iterator[None]:
        """Run the body in one of the tenant's slots, waiting for one; TenantBusy when the
        tenant's queue is full or no slot came free in time."""
        with self._lock:
            admitted = self._admitted.get(tenant, 0)
            if admitted >= self._admitted_cap:
                raise TenantBusy(tenant)
            self._admitted[tenant] = admitted + 1
            slots = self._slots.setdefault(tenant, threading.Semaphore(self._running))
        try:
            if not slots.acquire(timeout=self._wait):
                logger.warning("tenant request waited too long", extra={"tenant": tenant})
                raise TenantBusy(tenant)
            try:
                yield
            finally:
                slots.release()
        finally:
            with self._lock:
                self._admitted[tenant] -= 1
                if not self._admitted[tenant]:
                    # Nobody holds or waits for its semaphore: a tenant gone costs nothing.
                    del self._admitted[tenant]
                    del self._slots[tenant]
