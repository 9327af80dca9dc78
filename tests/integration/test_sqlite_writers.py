"""Writers on one SQLite file: this process's queue on a mutex (read-then-write attempts hold it
throughout), another process's on the file's lock."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.adapters.sqlite.database import Database
from agent_memory.bootstrap import build_services
from agent_memory.domain.agents.service import parse_manifest
from agent_memory.domain.kernel.errors import PreconditionFailed, StorageUnavailable
from agent_memory.settings import Settings
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


def test_inside_exclusive_no_other_writer_of_the_process_writes(db):
    inside, other_done = threading.Event(), threading.Event()

    def other() -> None:
        inside.wait(5)
        with db.write() as conn:
            conn.execute("INSERT INTO t VALUES (2)")
        other_done.set()

    writer = threading.Thread(target=other)
    writer.start()
    with db.exclusive():
        seen = values(db.path)
        inside.set()
        assert not other_done.wait(0.2)  # the other writer waits for the block's end
        with db.write() as conn:  # re-entrant: the block itself writes as usual
            conn.execute("INSERT INTO t VALUES (?)", (len(seen) + 1,))
    writer.join(5)
    assert other_done.is_set()
    assert values(db.path) == [1, 2]


def test_concurrent_saves_of_one_agent_each_get_their_own_version(tmp_path):
    # Six threads save one agent's manifest ten times each. Each save reads the version, then
    # writes the next on that condition; held exclusive, no save loses to another of the process.
    store = SqliteStore(tmp_path / "db.sqlite3")
    services = build_services(Settings(data_dir=tmp_path), store=store, embedder=None)
    services.agents.put("acme", "teams/a", parse_manifest({}))
    lost: list[str] = []
    save = store.save_manifest

    def counted(agent, version, expected_version):  # type: ignore[no-untyped-def]
        try:
            save(agent, version, expected_version)
        except PreconditionFailed:
            lost.append(agent.id)
            raise

    store.save_manifest = counted  # type: ignore[method-assign]
    errors: list[Exception] = []

    def saver(n: int) -> None:
        for i in range(10):
            wanted = 1 + (n * 10 + i) % 20
            manifest = {"harness": {"memory": {"search": {"max_results": wanted}}}}
            try:
                services.agents.put("acme", "teams/a", parse_manifest(manifest))
            except Exception as exc:  # noqa: BLE001 - every failure is reported below
                errors.append(exc)

    threads = [threading.Thread(target=saver, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert lost == []
    agent = services.agents.get("acme", "teams/a")
    assert agent.manifest_version == 61
    store.close()
