"""One daemon thread running a loop beside the requests (the embedded shape's workers)."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable


class BackgroundLoop(ABC):
    """Start once, stop after the work in hand: `_loop` runs until `_stop` is set."""

    thread_name = "agent-memory-worker"

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_in_background(self) -> None:
        """Start the thread (the embedded server does, at start)."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name=self.thread_name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop after the work in hand; what is still queued stays queued in the store."""
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _wake(self) -> None:  # noqa: B027 - most loops wait on `_stop` itself
        """Wake a loop waiting for work (stop calls it once `_stop` is set)."""

    @abstractmethod
    def _loop(self) -> None:
        """Work until `self._stop` is set."""


class BatchLoop(BackgroundLoop):
    """A queue worked a batch at a time: a subclass implements `_step` (one batch) and
    `_step_failed` (its log line). The thread steps while anything is queued, waits
    `idle_seconds` once the queue is empty and `backoff_seconds` after a batch that raised;
    `_drain` steps in the caller's thread instead (the CLI, tests, benchmarks)."""

    def __init__(self, *, idle_seconds: float, backoff_seconds: float) -> None:
        super().__init__()
        self._idle = idle_seconds
        self._backoff = backoff_seconds
        # One batch at a time, whether the thread or a drain runs it.
        self._running = threading.Lock()

    def step(self) -> tuple[int, bool]:
        """One batch: (documents done, whether any were queued)."""
        with self._running:
            return self._step()

    def _drain(self, after_batch: Callable[[int], None] | None = None) -> int:
        """Step until the queue is empty; how many documents were done (`after_batch` is told
        the count so far after each batch that left more queued)."""
        total = 0
        while True:
            done, left = self.step()
            total += done
            if not left:
                return total
            if after_batch is not None:
                after_batch(total)

    def _loop(self) -> None:
        self._start_up()
        while not self._stop.is_set():
            try:
                _, left = self.step()
            except Exception:  # noqa: BLE001 - a busy database or a failing model must not end it
                self._step_failed()
                self._stop.wait(self._backoff)
                continue
            if not left:
                self._stop.wait(self._idle)

    def _start_up(self) -> None:  # noqa: B027 - most queues need nothing before the first batch
        """Run once in the thread, before its first batch."""

    @abstractmethod
    def _step(self) -> tuple[int, bool]:
        """One batch, under the lock: (documents done, whether any were queued)."""

    @abstractmethod
    def _step_failed(self) -> None:
        """Log a batch that raised: called while the error is handled, so `exc_info` is it."""
