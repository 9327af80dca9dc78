"""Bulk loading of a JSON Lines history through `POST /v1/ingest`: batches, several at once,
resumable.

Messages of one session are applied in the file's order: each session goes to one sender (by
its agent and session), which sends its messages in batches; senders run at once, so sessions
load side by side. Every message is idempotent (events carry their sequence), so a batch that
failed in flight is sent again, and a load that stopped part way can start again: with a state
file, the lines every one of which was answered are skipped.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
import urllib.error
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .client import ApiError, Client, ConnectionFailed

logger = logging.getLogger(__name__)

BATCH = 500  # messages a request (the most /v1/ingest takes)
SENDERS = 2  # requests in flight at once (the server writes one batch at a time)
_RETRIES = 6  # a batch the server could not answer (503, 429, the connection) is sent again
_RETRYABLE = {429, 500, 502, 503, 504}


@dataclass
class Line:
    number: int
    message: dict[str, Any] | None  # None: the line is no message (its problem in `problem`)
    events: int = 0
    problem: str | None = None


@dataclass
class Progress:
    """Where a load stands; handed to the progress callback as it moves."""

    lines: int
    events: int
    done_lines: int = 0
    done_events: int = 0
    counts: dict[str, int] = field(
        default_factory=lambda: {"applied": 0, "already applied": 0, "failed": 0}
    )
    started: float = field(default_factory=time.monotonic)
    resumed_after: int = 0
    # Events of the lines the server holds once answered (applied now, or already applied by an
    # earlier load); a failed line's events are not among them.
    stored_events: int = 0
    # (line number, problem) of each failed line, in line order once the load is done.
    failures: list[tuple[int, str]] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Events a second since the load started."""
        elapsed = time.monotonic() - self.started
        return self.done_events / elapsed if elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        rate = self.rate
        return (self.events - self.done_events) / rate if rate > 0 else None


def read_lines(stream: Iterable[str]) -> list[Line]:
    """Each non-empty line, parsed as far as the sender needs (a JSON object naming its agent
    and session); the server judges the rest."""
    lines = []
    for number, text in enumerate(stream, start=1):
        if not text.strip():
            continue
        try:
            message = json.loads(text)
        except ValueError as exc:
            lines.append(Line(number, None, problem=f"not JSON: {exc}"))
            continue
        if not isinstance(message, dict):
            lines.append(Line(number, None, problem="a message is a JSON object"))
            continue
        events = message.get("events")
        count = len(events) if message.get("op") == "events" and isinstance(events, list) else 0
        lines.append(Line(number, message, events=count))
    return lines


class _Checkpoint:
    """The highest line number through which every line was answered, kept in a state file
    (written whole, then renamed into place), so a stopped load resumes after it."""

    def __init__(self, path: Path | None, source: Path | None, lines: list[Line]) -> None:
        self._path = path
        self._stamp = _stamp(source) if source is not None else None
        self._order = [line.number for line in lines]
        self._done: set[int] = set()
        self._through_index = 0  # lines[:through_index] are all answered
        self._lock = threading.Lock()
        self._written = 0.0

    def resume_after(self) -> int:
        if self._path is None or not self._path.exists():
            return 0
        try:
            state = json.loads(self._path.read_text())
        except ValueError:
            return 0
        if state.get("source") != self._stamp:
            return 0  # another file, or this one changed: start from the top
        return int(state.get("through", 0))

    def answered(self, numbers: Iterable[int], counts: dict[str, int]) -> None:
        with self._lock:
            self._done.update(numbers)
            while (
                self._through_index < len(self._order)
                and self._order[self._through_index] in self._done
            ):
                self._done.discard(self._order[self._through_index])
                self._through_index += 1
            if time.monotonic() - self._written > 1.0:
                self._write(counts)

    def finish(self, counts: dict[str, int]) -> None:
        with self._lock:
            self._write(counts)

    def _write(self, counts: dict[str, int]) -> None:
        if self._path is None:
            return
        through = self._order[self._through_index - 1] if self._through_index else 0
        state = {"source": self._stamp, "through": through, "counts": counts}
        temporary = self._path.with_name(self._path.name + ".tmp")
        temporary.write_text(json.dumps(state))
        os.replace(temporary, self._path)
        self._written = time.monotonic()


def _stamp(source: Path) -> dict[str, Any]:
    """What tells this file from another (or from itself changed): size, time, first bytes."""
    info = source.stat()
    with source.open("rb") as f:
        head = zlib.crc32(f.read(1 << 16))
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "head": head}


def load(
    client: Client,
    lines: list[Line],
    *,
    source: Path | None = None,
    state: Path | None = None,
    batch: int = BATCH,
    senders: int = SENDERS,
    on_progress: Callable[[Progress], None] | None = None,
    on_failure: Callable[[int, str], None] | None = None,
) -> Progress:
    """Apply `lines` through the server; the counts of applied, already applied and failed
    messages. With `state`, lines answered by an earlier run of the same file are skipped.
    `on_failure(line number, problem)` is called for each failed line, in line order, once the
    lines are all answered."""
    if batch < 1 or senders < 1:
        raise ValueError("batch and senders must be at least 1")
    checkpoint = _Checkpoint(state, source, lines)
    skip = checkpoint.resume_after()
    todo = [line for line in lines if line.number > skip]
    progress = Progress(
        lines=len(todo), events=sum(line.events for line in todo), resumed_after=skip
    )
    lock = threading.Lock()

    def answered(done: list[Line], statuses: list[tuple[str, str | None]]) -> None:
        with lock:
            for line, (status, problem) in zip(done, statuses, strict=True):
                progress.counts[status] += 1
                if status != "failed":
                    progress.stored_events += line.events
                elif status == "failed":
                    progress.failures.append((line.number, problem or "failed"))
            progress.done_lines += len(done)
            progress.done_events += sum(line.events for line in done)
        checkpoint.answered((line.number for line in done), progress.counts)
        if on_progress is not None:
            on_progress(progress)

    queues: list[queue.Queue[Line | None]] = [
        queue.Queue(maxsize=4 * batch) for _ in range(senders)
    ]
    errors: list[BaseException] = []
    threads = [
        threading.Thread(
            target=_sender, args=(client, q, batch, answered, errors), name=f"ingest-{n}"
        )
        for n, q in enumerate(queues)
    ]
    for thread in threads:
        thread.start()
    try:
        _dispatch(todo, queues, answered, errors)
    finally:
        _stop(queues, threads)
        checkpoint.finish(progress.counts)
        # Senders answer out of order; failures are told in the file's order.
        progress.failures.sort()
        if on_failure is not None:
            for number, problem in progress.failures:
                on_failure(number, problem)
    if errors:
        raise errors[0]
    return progress


def _dispatch(
    todo: list[Line],
    queues: list[queue.Queue[Line | None]],
    answered: Callable[[list[Line], list[tuple[str, str | None]]], None],
    errors: list[BaseException],
) -> None:
    """Each line to its session's sender (a line that is no message fails at once), until
    the lines run out or a sender fails."""
    for line in todo:
        if line.message is None:
            answered([line], [("failed", line.problem)])
            continue
        key = f"{line.message.get('agent')}\0{line.message.get('session')}"
        while not errors:
            try:
                queues[zlib.crc32(key.encode()) % len(queues)].put(line, timeout=0.5)
                break
            except queue.Full:
                continue
        if errors:
            break


def _stop(queues: list[queue.Queue[Line | None]], threads: list[threading.Thread]) -> None:
    """Every sender sends what it holds and ends; wait for them all."""
    for q, thread in zip(queues, threads, strict=True):
        # The end marker, unless the sender is gone (it failed): its queue may stay full.
        while thread.is_alive():
            try:
                q.put(None, timeout=0.1)
                break
            except queue.Full:
                continue
    for thread in threads:
        thread.join()


def _sender(
    client: Client,
    lines: queue.Queue[Line | None],
    batch: int,
    answered: Callable[[list[Line], list[tuple[str, str | None]]], None],
    errors: list[BaseException],
) -> None:
    ended = False
    while not ended and not errors:
        first = lines.get()
        if first is None:
            return
        chunk = [first]
        while len(chunk) < batch:
            try:
                more = lines.get_nowait()
            except queue.Empty:
                break
            if more is None:
                ended = True
                break
            chunk.append(more)
        try:
            results = _send(client, chunk)
        except BaseException as exc:  # noqa: BLE001 - handed to the loader, which raises it
            errors.append(exc)
            return
        answered(chunk, results)


def _send(client: Client, chunk: list[Line]) -> list[tuple[str, str | None]]:
    delay = 0.2
    for attempt in range(_RETRIES):
        try:
            body = client.ingest([x.message for x in chunk if x.message is not None])
        except ApiError as exc:
            if exc.status in _RETRYABLE and attempt + 1 < _RETRIES:
                time.sleep(delay)
                delay *= 2
                continue
            if exc.status == 400:
                # The batch as a whole was refused (a message too large, say): each alone.
                return (
                    [_send(client, [line])[0] for line in chunk]
                    if len(chunk) > 1
                    else [("failed", str(exc))]
                )
            raise
        except (ConnectionFailed, urllib.error.URLError, ConnectionError, TimeoutError):
            if attempt + 1 < _RETRIES:
                time.sleep(delay)
                delay *= 2
                continue
            raise
        return [
            (r["status"], _problem(r) if r["status"] == "failed" else None) for r in body["results"]
        ]
    raise AssertionError("unreachable")


def _problem(result: dict[str, Any]) -> str:
    error = result.get("error") or {}
    return f"{error.get('code', 'failed')}: {error.get('message', '')}"
