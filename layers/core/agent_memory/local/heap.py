"""The server's start-up objects kept out of Python's full garbage collections.

Everything imported and built at start (modules, classes, pydantic's validators, the embedding
model's tokenizer and session, the routes) lives as long as the process, yet every full
collection walks all of it: measured under the open-loop benchmark, each one stopped every
request for 70-90 ms, a few times a minute, well above a read's p99. Once start-up is over
(the embedding model loaded), one collection frees what start-up left behind and `gc.freeze`
moves the rest to the permanent generation, which no later collection walks; a full collection
then walks only what serving made (benchmarks/RESULTS.md "Open loop").

Nothing is kept that would have been freed: the collection just before the freeze takes what
start-up's cycles left, and objects made afterwards are collected as before.
"""

from __future__ import annotations

import gc
import logging
import threading
import time

logger = logging.getLogger(__name__)

# How long to wait for the embedding model before settling without it (it may never load: a
# missing model is tried again on first use).
READY_TIMEOUT_S = 120.0


def settle() -> int:
    """Collect once, then freeze what is left; how many objects were frozen."""
    started = time.perf_counter()
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    logger.info(
        "start-up objects frozen out of garbage collection",
        extra={"frozen": frozen, "ms": round((time.perf_counter() - started) * 1000, 1)},
    )
    return frozen


def settle_when(ready: threading.Event | None) -> threading.Thread:
    """Settle in a thread of its own once `ready` is set (or it has waited READY_TIMEOUT_S;
    at once without an event)."""

    def run() -> None:
        if ready is not None:
            ready.wait(READY_TIMEOUT_S)
        settle()

    thread = threading.Thread(target=run, name="agent-memory-settle", daemon=True)
    thread.start()
    return thread
