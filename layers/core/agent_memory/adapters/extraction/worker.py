"""The embedded shape's extraction worker: one thread running committed turns' reviews.

Its queue is bounded. The source of truth is the store: a committed turn's review is queued in
the same transaction as the commit, so a job the in-memory queue had no room for, or one a
stopped server never ran, is still queued in the SQLite file; the worker finds those when it
starts and whenever its queue runs dry. Each job is tried `attempts` times with exponential
backoff, then recorded as failed on its turn. A review never blocks or fails its turn.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from ...domain.extraction.job import ExtractionJob
from ...domain.extraction.ports import ExtractionStarter
from ...domain.extraction.service import ExtractionService
from ...domain.kernel.models import Turn
from ..background import BackgroundLoop

logger = logging.getLogger(__name__)

PendingReader = Callable[[int], list[Turn]]


class ExtractionWorker(BackgroundLoop, ExtractionStarter):
    thread_name = "agent-memory-extraction"

    def __init__(
        self,
        service: ExtractionService,
        pending: PendingReader | None = None,
        *,
        queue_size: int = 1_000,
        attempts: int = 3,
        backoff_seconds: float = 1.0,
        poll_seconds: float = 5.0,
    ) -> None:
        self._service = service
        self._pending = pending
        self._queue: queue.Queue[ExtractionJob] = queue.Queue(maxsize=queue_size)
        self._queued: set[ExtractionJob] = set()
        self._lock = threading.Lock()
        self._attempts = attempts
        self._backoff = backoff_seconds
        self._poll = poll_seconds
        super().__init__()
        # Rung by start() and stop(): an idle worker wakes at once instead of at its next poll
        # (a server's SIGTERM waited out up to `poll_seconds` for it).
        self._bell = threading.Event()

    # -- the starter port: called by a commit -----------------------------------------------------

    def start(self, job: ExtractionJob) -> None:
        """Queue the job if there is room; otherwise it stays queued in the store and is picked
        up when the queue runs dry."""
        with self._lock:
            if job in self._queued:
                return
            try:
                self._queue.put_nowait(job)
            except queue.Full:
                logger.warning(
                    "extraction queue full; the review waits in the store",
                    extra={"turn_id": job.turn_id},
                )
                return
            self._queued.add(job)
        self._bell.set()

    # -- running ------------------------------------------------------------------------------

    def _wake(self) -> None:
        self._bell.set()

    def drain(self) -> int:
        """Run every queued job (and every pending one in the store) in this thread, until
        none is left; the number run. For the CLI, tests and benchmarks."""
        ran = 0
        while True:
            job = self._next(block=False)
            if job is None:
                return ran
            self._process(job)
            ran += 1

    @property
    def backlog(self) -> int:
        return self._queue.qsize()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                job = self._next(block=True)
            except Exception:  # noqa: BLE001 - a busy database must not end the worker
                logger.exception("extraction worker could not read its queue; trying again")
                self._stop.wait(self._poll)
                continue
            if job is not None:
                self._process(job)

    def _next(self, block: bool) -> ExtractionJob | None:
        job = self._take()
        if job is None and block:
            # The bell is a hint: the queue is read again after it is cleared, so a job started
            # between the wait and the clear is still found.
            self._bell.wait(self._poll)
            self._bell.clear()
            if self._stop.is_set():
                return None
            job = self._take()
        if job is None:
            self._refill()
            job = self._take()
        return job

    def _take(self) -> ExtractionJob | None:
        try:
            return self._queue.get_nowait()
        except queue.Empty:
            return None

    def _refill(self) -> None:
        """Queue the reviews the store holds as queued or running that the queue does not
        (after a restart, or when the queue was full)."""
        if self._pending is None:
            return
        room = self._queue.maxsize - self._queue.qsize()
        for turn in self._pending(max(room, 0)):
            self.start(ExtractionJob.of(turn))

    def _process(self, job: ExtractionJob) -> None:
        try:
            for attempt in range(self._attempts):
                try:
                    self._service.run(job)
                    return
                except Exception as exc:  # noqa: BLE001 - retried, then recorded on the turn
                    error = f"{type(exc).__name__}: {exc}"
                    logger.warning(
                        "extraction attempt failed",
                        extra={"turn_id": job.turn_id, "attempt": attempt + 1, "error": error},
                    )
                    if attempt + 1 < self._attempts and self._stop.wait(self._backoff * 2**attempt):
                        return  # stopping: the review stays queued in the store
            self._service.fail(job, error)
        except Exception:  # noqa: BLE001 - the worker outlives any one job
            logger.exception(
                "extraction job lost its failure record", extra={"turn_id": job.turn_id}
            )
        finally:
            with self._lock:
                self._queued.discard(job)
