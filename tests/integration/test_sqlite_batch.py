"""Batched writes on SQLite (bulk ingestion): one transaction, each write a savepoint in it."""

from __future__ import annotations

import sqlite3

import pytest

from agent_memory.adapters.events.local_bus import InProcessBus
from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.adapters.sqlite.database import Database
from agent_memory.bootstrap import build_services
from agent_memory.domain.services.agents import parse_manifest
from agent_memory.settings import Settings

pytestmark = pytest.mark.integration

A = "teams/import"


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "db.sqlite3")
    with database.write() as conn:
        conn.execute("CREATE TABLE t (v INTEGER PRIMARY KEY)")
    yield database
    database.close()


def values(path) -> list[int]:
    other = sqlite3.connect(path)
    try:
        return [row[0] for row in other.execute("SELECT v FROM t ORDER BY v")]
    finally:
        other.close()


def test_a_failing_write_in_a_batch_takes_back_only_itself(db):
    with db.batch():
        with db.write() as conn:
            conn.execute("INSERT INTO t VALUES (1)")
        with pytest.raises(sqlite3.IntegrityError), db.write() as conn:
            conn.execute("INSERT INTO t VALUES (2)")
            conn.execute("INSERT INTO t VALUES (1)")  # fails: 2 goes with it
        with db.write() as conn:
            conn.execute("INSERT INTO t VALUES (3)")
        # Nothing is visible to another connection before the batch ends.
        assert values(db.path) == []
    assert values(db.path) == [1, 3]


def test_a_batch_that_raises_keeps_nothing(db):
    with pytest.raises(RuntimeError), db.batch():
        with db.write() as conn:
            conn.execute("INSERT INTO t VALUES (1)")
        raise RuntimeError("the batch failed")
    assert values(db.path) == []
    with db.write() as conn:  # and the connection writes as usual after it
        conn.execute("INSERT INTO t VALUES (4)")
    assert values(db.path) == [4]


class Recording(InProcessBus):
    """Notes, for each event it is handed, how many turns another connection sees committed."""

    def __init__(self, path) -> None:
        super().__init__()
        self.path = path
        self.heard: list[tuple[str, int]] = []

    def publish(self, events) -> None:
        other = sqlite3.connect(self.path)
        try:
            (committed,) = other.execute(
                "SELECT count(*) FROM turns WHERE status = 'committed'"
            ).fetchone()
        finally:
            other.close()
        self.heard += [(e.type, committed) for e in events]
        super().publish(events)


def test_a_batch_announces_its_commits_only_once_they_are_committed(tmp_path):
    path = tmp_path / "db.sqlite3"
    bus = Recording(path)
    services = build_services(
        Settings(data_dir=tmp_path), store=SqliteStore(path), events=bus, embedder=None, model=None
    )
    manifest = {"harness": {"memory": {"enabled": True, "tools": ["add_memory"]}}}
    services.agents.put("acme", A, parse_manifest(manifest))
    sessions = services.sessions
    session = sessions.create("acme", A, None, {}).id
    turns = []
    for n in range(2):
        turn = sessions.begin_turn("acme", A, session)
        services.tools.call(
            "acme",
            A,
            session,
            turn.id,
            "add_memory",
            {"summary": f"fact {n}", "caller": {"role": "agent"}},
        )
        turns.append(turn.id)
    with sessions.batched():
        for turn_id in turns:
            sessions.commit("acme", A, session, turn_id)
        assert bus.heard == []  # nothing announced while the batch is open
    # Each commit's memory.updated and agent.memory_updated, heard once both turns committed.
    assert len(bus.heard) == 4 and all(committed == 2 for _, committed in bus.heard)
    services.close()


def test_an_ingested_batch_answers_each_message_in_its_place(tmp_path):
    store = SqliteStore(tmp_path / "db.sqlite3")
    services = build_services(Settings(data_dir=tmp_path), store=store, embedder=None, model=None)
    services.agents.put("acme", A, parse_manifest({"harness": {"history": {"index": "messages"}}}))
    base = {"agent": A, "session": "s", "turn": "t-1"}
    results = services.ingest.apply_batch(
        "acme",
        [
            {"op": "begin", **base},
            {"op": "events", **base, "events": [{"role": "user", "text": "hi", "sequence": 1}]},
            {"op": "explode", **base},
            {"op": "commit", **base},
            {"op": "commit", **base},
        ],
    )
    assert [r.status for r in results] == [
        "applied",
        "applied",
        "failed",
        "applied",
        "already applied",
    ]
    assert results[2].error["code"] == "invalid_message"
    turn = services.sessions.get_turn("acme", A, "s", "t-1")
    assert turn.status.value == "committed"
    services.close()
