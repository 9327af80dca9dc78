"""Writers on one SQLite file: this process's queue on a mutex, another process's on the file's lock."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from agent_memory.adapters.sqlite.database import Database
from agent_memory.domain.errors import StorageUnavailable
from sqlite_table import table_db, values

pytestmark = pytest.mark.integration


@pytest.fixture
def db(tmp_path):
    database = table_db(tmp_path / "db.sqlite3", busy_seconds=0.3)
    yield database
    database.close()


def hold_write(db: Database, value: int, holding: threading.Event, done: threading.Event) -> None:
    with db.write() as conn:
        conn.execute("INSERT INTO t VALUES (?)", (value,))
        holding.set()
        done.wait(5)


def test_a_second_writer_waits_for_the_first_then_writes(tmp_path):
    db = table_db(tmp_path / "db.sqlite3")  # the default wait: far longer than the test
    holding, release, second_done = threading.Event(), threading.Event(), threading.Event()
    first = threading.Thread(target=hold_write, args=(db, 1, holding, release))
    first.start()
    assert holding.wait(5)

    def second() -> None:
        with db.write() as conn:
            conn.execute("INSERT INTO t VALUES (2)")
        second_done.set()

    waiter = threading.Thread(target=second)
    waiter.start()
    # While the first holds the lock the second has not written (nor failed).
    assert not second_done.wait(0.2)
    release.set()
    first.join(5)
    waiter.join(5)
    assert second_done.is_set()
    assert values(db.path) == [1, 2]
    db.close()


def test_a_writer_that_waits_past_its_time_gets_503_and_writes_nothing(db):
    holding, release = threading.Event(), threading.Event()
    first = threading.Thread(target=hold_write, args=(db, 1, holding, release))
    first.start()
    assert holding.wait(5)
    try:
        with pytest.raises(StorageUnavailable, match="busy"), db.write() as conn:
            conn.execute("INSERT INTO t VALUES (2)")
    finally:
        release.set()
        first.join(5)
    assert values(db.path) == [1]
    # The lock is free again: the next write goes through.
    with db.write() as conn:
        conn.execute("INSERT INTO t VALUES (3)")
    assert values(db.path) == [1, 3]


def test_a_write_that_raises_frees_the_lock_for_the_next(db):
    with pytest.raises(sqlite3.IntegrityError), db.write() as conn:
        conn.execute("INSERT INTO t VALUES (1)")
        conn.execute("INSERT INTO t VALUES (1)")
    with db.write() as conn:
        conn.execute("INSERT INTO t VALUES (2)")
    assert values(db.path) == [2]


def test_another_connection_holding_the_file_still_makes_a_writer_wait_then_503(db):
    # Another process's writer is not on this process's mutex: the file's own lock holds it.
    other = sqlite3.connect(db.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t VALUES (7)")
    try:
        with pytest.raises(StorageUnavailable), db.write() as conn:
            conn.execute("INSERT INTO t VALUES (8)")
    finally:
        other.execute("COMMIT")
        other.close()
    assert values(db.path) == [7]
    with db.write() as conn:
        conn.execute("INSERT INTO t VALUES (9)")
    assert values(db.path) == [7, 9]
