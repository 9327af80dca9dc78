"""Processes opening a new SQLite data file at once all start (WAL is switched on by whichever
is first; the others once found the file "locked" and crashed)."""

from __future__ import annotations

import multiprocessing

import pytest

pytestmark = pytest.mark.contract


def _start(path: str, barrier, results) -> None:
    try:
        from agent_memory.adapters.sqlite import SqliteStore

        barrier.wait(10)
        SqliteStore(path).close()
        results.put("ok")
    except Exception as exc:  # reported to the test, which fails on it
        results.put(repr(exc))


def test_four_processes_start_on_one_new_file(tmp_path):
    context = multiprocessing.get_context("fork")
    for trial in range(8):
        path = str(tmp_path / f"db-{trial}.sqlite3")
        barrier, results = context.Barrier(4), context.Queue()
        workers = [context.Process(target=_start, args=(path, barrier, results)) for _ in range(4)]
        for worker in workers:
            worker.start()
        outcomes = [results.get(timeout=60) for _ in workers]
        for worker in workers:
            worker.join(30)
        assert outcomes == ["ok"] * 4
