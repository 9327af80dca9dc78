"""One daemon thread running a loop beside the requests (the embedded shape's workers)."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod


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
