"""What one client may take of the embedded server: requests per token, and requests without a
valid token per client address (a token bucket each, 429 with Retry-After past it). Connections
are capped in local.connections."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)


class RateLimiter:
    """A token bucket per key: `burst` requests at once, refilled at `per_minute`."""

    def __init__(
        self, per_minute: int, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rate = per_minute / 60.0
        self._burst = float(burst)
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)
        self._lock = threading.Lock()

    def peek(self, key: str) -> float:
        """The seconds until `key` may make a request (0: now), counting nothing."""
        if self._rate <= 0:
            return 0.0
        with self._lock:
            tokens, at = self._buckets.get(key, (self._burst, self._clock()))
            tokens = min(self._burst, tokens + (self._clock() - at) * self._rate)
            return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self._rate

    def take(self, key: str) -> float:
        """0 when the request may go ahead (and is counted), else the seconds until it may."""
        if self._rate <= 0:
            return 0.0
        with self._lock:
            now = self._clock()
            tokens, at = self._buckets.get(key, (self._burst, now))
            tokens = min(self._burst, tokens + (now - at) * self._rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            if len(self._buckets) > 100_000:
                self._forget_full(now)
            return (1.0 - tokens) / self._rate

    def _forget_full(self, now: float) -> None:
        # A bucket refilled to the brim says nothing a new one would not: drop it.
        self._buckets = {
            k: (t, a)
            for k, (t, a) in self._buckets.items()
            if t + (now - a) * self._rate < self._burst
        }


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))
