"""Batched writes on SQLite (bulk ingestion): one transaction, each write a savepoint in it."""

from __future__ import annotations

import sqlite3

import pytest

from agent_memory.adapters.events.local_bus import InProcessBus
from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.adapters.sqlite.words import words_table
from agent_memory.bootstrap import build_services
from agent_memory.domain.agents.service import parse_manifest
from agent_memory.domain.kernel.where import TurnRef
from agent_memory.domain.search.index import IndexFilter
from agent_memory.settings import Settings
from index_docs import doc
from sqlite_table import table_db, values

pytestmark = pytest.mark.integration

A = "teams/import"


@pytest.fixture
def db(tmp_path):
    database = table_db(tmp_path / "db.sqlite3")
    yield database
    database.close()


def keeping_history(tmp_path, **build):
    """A store and its services, with agent A keeping its history indexed by message."""
    store = SqliteStore(tmp_path / "db.sqlite3")
    services = build_services(Settings(data_dir=tmp_path), store=store, embedder=None, **build)
    services.agents.put("acme", A, parse_manifest({"harness": {"history": {"index": "messages"}}}))
    return store, services


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
            turn.ref,
            "add_memory",
            {"summary": f"fact {n}", "caller": {"role": "agent"}},
        )
        turns.append(turn.id)
    with sessions.batched():
        for turn_id in turns:
            sessions.commit(TurnRef("acme", A, session, turn_id))
        assert bus.heard == []  # nothing announced while the batch is open
    # Each commit's memory.updated and agent.memory_updated, heard once both turns committed.
    assert len(bus.heard) == 4 and all(committed == 2 for _, committed in bus.heard)
    services.close()


def test_an_ingested_batch_answers_each_message_in_its_place(tmp_path):
    store, services = keeping_history(tmp_path, model=None)
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
    turn = services.sessions.get_turn(TurnRef("acme", A, "s", "t-1"))
    assert turn.status.value == "committed"
    services.close()


# -- what a batch reads once, and the words it holds until it ends ------------------------------


def agent_reads(store: SqliteStore) -> list[str]:
    """The agent SELECTs the store's connection runs from now on (this thread's)."""
    seen: list[str] = []
    store.db.connection().set_trace_callback(
        lambda sql: seen.append(sql) if sql.startswith("SELECT * FROM agents") else None
    )
    return seen


def test_a_batch_reads_its_agent_once_and_again_after_a_write_changes_it(tmp_path):
    store, services = keeping_history(tmp_path, model=None)
    seen = agent_reads(store)
    with store.batched():
        first = store.get_agent("acme", A)
        assert store.get_agent("acme", A) == first and len(seen) == 1
        # A write that changes the agent in the batch: the next read is of the new row.
        services.agents.put("acme", A, parse_manifest({"harness": {"history": {"index": None}}}))
        assert store.get_agent("acme", A).manifest_version == first.manifest_version + 1
        # One rolled back: the read after it is of the row the batch holds again.
        with pytest.raises(RuntimeError), store.db.write():
            services.agents.put("acme", A, parse_manifest({"harness": {}}))
            assert store.get_agent("acme", A).manifest_version == first.manifest_version + 2
            raise RuntimeError("the message failed")
        assert store.get_agent("acme", A).manifest_version == first.manifest_version + 1
    # Outside a batch every read goes to the file.
    before = len(seen)
    store.get_agent("acme", A)
    store.get_agent("acme", A)
    assert len(seen) == before + 2
    services.close()


def words_rows(path) -> list[str]:
    """The text of every row of the words tables, as another connection sees them."""
    other = sqlite3.connect(path)
    try:
        tables = [
            row[0]
            for row in other.execute(
                "SELECT name FROM sqlite_master WHERE name LIKE 'search_words_%'"
                " AND sql LIKE 'CREATE VIRTUAL TABLE%'"
            )
        ]
        return sorted(t for table in tables for (t,) in other.execute(f"SELECT text FROM {table}"))
    finally:
        other.close()


def found(index, words: str) -> list[str]:
    return [h.id for h in index.lexical("t1", "teams/web", words, IndexFilter(), 10)]


def test_words_written_in_a_batch_are_in_the_index_when_it_commits_and_not_before(tmp_path):
    path = tmp_path / "db.sqlite3"
    store = SqliteStore(path)
    index = store.attach_index(None, None)
    with store.batched():
        index.upsert([doc("r1", "violin lessons on tuesday")])
        with pytest.raises(RuntimeError), store.db.write() as conn:
            index.upsert_in(conn, [doc("r2", "marathon training plan")])
            raise RuntimeError("the message failed")  # its words go with it
        index.upsert([doc("r3", "first draft about pasta")])
        index.upsert([doc("r3", "second draft about risotto", version=2)])
        assert words_rows(path) == []  # nothing is seen outside before the batch commits
        # A search in the batch finds what the batch wrote so far.
        assert found(index, "violin") == ["r1"]
        index.upsert([doc("r4", "violin concert")])
    assert words_rows(path) == sorted(
        ["violin lessons on tuesday", "second draft about risotto", "violin concert"]
    )
    assert sorted(found(index, "violin")) == ["r1", "r4"]
    assert found(index, "marathon") == [] and found(index, "pasta") == []
    assert found(index, "risotto") == ["r3"]
    store.close()


def test_words_held_by_a_batch_that_fails_are_never_written(tmp_path):
    path = tmp_path / "db.sqlite3"
    store = SqliteStore(path)
    index = store.attach_index(None, None)
    with pytest.raises(RuntimeError), store.batched():
        index.upsert([doc("r1", "violin lessons")])
        raise RuntimeError("the batch failed")
    index.upsert([doc("r2", "marathon training")])  # outside a batch: written at once
    assert words_rows(path) == ["marathon training"]
    assert found(index, "violin") == [] and found(index, "marathon") == ["r2"]
    store.close()


def test_a_words_table_made_by_a_write_that_failed_is_made_again_in_the_same_batch(tmp_path):
    # The first write fails and takes the tables it made (its words table, the table holding
    # the batch's words) away with it: the next write makes them again.
    path = tmp_path / "db.sqlite3"
    store = SqliteStore(path)
    index = store.attach_index(None, None)
    with store.batched():
        with pytest.raises(RuntimeError), store.db.write() as conn:
            index.upsert_in(conn, [doc("r1", "violin lessons")])
            raise RuntimeError("the message failed")
        index.upsert([doc("r2", "marathon training")])
    assert words_rows(path) == ["marathon training"]
    assert found(index, "marathon") == ["r2"] and found(index, "violin") == []
    store.close()


def row_turn(store: SqliteStore, turn_id: str):
    """The turn as its row holds it, read past the batch's memo."""
    from agent_memory.adapters.sqlite.store import _turn

    row = store.db.read().execute("SELECT * FROM turns WHERE turn_id = ?", (turn_id,)).fetchone()
    return _turn(row)


def test_a_turn_a_batch_keeps_is_the_turn_its_row_holds(tmp_path):
    # Given an agent whose commits queue a review (the ended turn carries it) and keep history
    store = SqliteStore(tmp_path / "db.sqlite3")
    services = build_services(Settings(data_dir=tmp_path), store=store, embedder=None)
    manifest = {
        "harness": {
            "memory": {"enabled": True, "scope": {"read": ["agent"], "write": ["agent"]}},
            "history": {"index": "messages"},
        }
    }
    services.agents.put("acme", A, parse_manifest(manifest))
    base = {"agent": A, "session": "s"}
    messages = [
        {"op": "begin", **base, "turn": "t-1"},
        {
            "op": "events",
            **base,
            "turn": "t-1",
            "events": [{"role": "user", "text": "hi", "sequence": 1}],
        },
        {"op": "commit", **base, "turn": "t-1"},
        {"op": "begin", **base, "turn": "t-2"},
        {"op": "rollback", **base, "turn": "t-2"},
    ]
    with store.batched():
        for n, message in enumerate(messages):
            services.ingest.apply("acme", message)
            # When the batch reads a turn it began or ended, then it reads what the row holds
            turn_id = message["turn"]
            kept = store.get_turn("acme", A, "s", turn_id)
            assert kept == row_turn(store, turn_id), message["op"]
            if n == 2:
                assert kept.extraction is not None  # the commit's review is in it
    services.close()


def row_events(store: SqliteStore, turn_id: str):
    """The turn's events as their rows hold them, read past the batch's memo."""
    from agent_memory.adapters.sqlite.history import _event

    rows = store.db.read().execute(
        "SELECT doc FROM history_events WHERE turn_id = ? ORDER BY sequence", (turn_id,)
    )
    return [_event(row[0]) for row in rows]


def row_session(store: SqliteStore, session_id: str):
    """The session as its row holds it, read past the batch's memo."""
    from agent_memory.adapters.sqlite.store import _session

    row = (
        store.db.read()
        .execute("SELECT * FROM sessions WHERE session_id = ?", (session_id,))
        .fetchone()
    )
    return _session(row) if row else None


def test_a_session_a_batch_keeps_is_the_session_its_row_holds(tmp_path):
    # Given a batch that reads a session before it exists, opens it and begins turns in it
    store, services = keeping_history(tmp_path)
    base = {"agent": A, "session": "s"}
    with store.batched():
        assert store.get_session("acme", A, "s") is None
        for message in [
            {"op": "begin", **base, "turn": "t-1"},  # opens the session, then begins
            {"op": "commit", **base, "turn": "t-1"},
            {"op": "begin", **base, "turn": "t-2"},
            {"op": "rollback", **base, "turn": "t-2"},
            {"op": "begin", **base, "turn": "t-3"},
        ]:
            services.ingest.apply("acme", message)
            # When the batch reads the session, it is what the row holds (its last sequence)
            assert store.get_session("acme", A, "s") == row_session(store, "s"), message
    assert row_session(store, "s").last_sequence == 3
    services.close()


def test_the_events_a_batch_keeps_for_a_turn_are_the_events_its_rows_hold(tmp_path):
    # Given an agent keeping history, and a turn whose events come in two appends, the second
    # sent twice and the third holding a sequence already kept with another event
    store, services = keeping_history(tmp_path)
    base = {"agent": A, "session": "s", "turn": "t-1"}

    def events(*pairs):
        return {
            "op": "events",
            **base,
            "events": [{"role": r, "text": t, "sequence": n} for n, r, t in pairs],
        }

    second = events((3, "user", "and the bikes?"), (2, "assistant", "the race is in June"))
    messages = [
        {"op": "begin", **base},
        events((1, "user", "when is the marathon?")),
        second,
        second,
        events((2, "assistant", "another answer at a kept sequence")),
        {"op": "commit", **base},
    ]
    with store.batched():
        outcomes = []
        for message in messages:
            try:
                outcomes.append(services.ingest.apply("acme", message))
            except Exception as exc:  # noqa: BLE001 - the conflicting append's 409, below
                outcomes.append(type(exc).__name__)
            # When the batch reads the turn's events, they are what the rows hold, in order
            assert store.turn_events("acme", A, "s", "t-1") == row_events(store, "t-1")
            by_sequence = store.session_events("acme", A, "s", 1_000, None, 1, 1)
            assert by_sequence == row_events(store, "t-1")
            assert store.session_events("acme", A, "s", 2, None, 1, 1) == by_sequence[:2]
    # Then the repeat kept nothing new and the other event at a kept sequence was refused
    assert outcomes == ["applied", "applied", "applied", "applied", "Conflict", "applied"]
    assert [e.text for e in row_events(store, "t-1")] == [
        "when is the marathon?",
        "the race is in June",
        "and the bikes?",
    ]
    # And the commit indexed all three (one document each), found by their own words
    hits = store.index.lexical(
        "acme", A, "marathon bikes june", IndexFilter(kind="event", include_all_sessions=True), 10
    )
    assert sorted(h.id for h in hits) == sorted(f"{e.id}.1" for e in row_events(store, "t-1"))
    # And a next turn's commit in another batch is indexed with the last two messages before it
    with store.batched():
        for message in [
            {"op": "begin", **base, "turn": "t-2"},
            events((1, "user", "thanks")),
            {"op": "commit", **base, "turn": "t-2"},
        ]:
            services.ingest.apply("acme", {**message, "turn": "t-2"})
    context = (
        store.db.read()
        .execute(f"SELECT context FROM {words_table('acme', 'event')} WHERE text = 'thanks'")
        .fetchone()[0]
    )
    assert context == "the race is in June\nand the bikes?"
    services.close()


def test_in_a_batch_the_store_itself_refuses_events_for_a_turn_the_batch_ended(tmp_path):
    # Given a batch that began a turn and committed it (its memo holds the ended turn)
    from agent_memory.domain.history.append import history_event
    from agent_memory.domain.history.models import EventIn
    from agent_memory.domain.kernel.errors import PreconditionFailed

    store, services = keeping_history(tmp_path)
    base = {"agent": A, "session": "s", "turn": "t-1"}
    said = EventIn(role="user", text="too late")

    def event_of(turn_id: str):
        """The event as the history service would write it in that turn."""
        return history_event(store.get_turn("acme", A, "s", turn_id), said, 1, searchable=True)

    with store.batched():
        for op in ("begin", "commit"):
            services.ingest.apply("acme", {"op": op, **base})
        # When an event for it reaches the store past the service's own check
        with pytest.raises(PreconditionFailed):
            store.append_events("acme", A, "s", [event_of("t-1")])
        # And when the turn is open, the same store keeps it
        services.ingest.apply("acme", {"op": "begin", **base, "turn": "t-2"})
        assert store.append_events("acme", A, "s", [event_of("t-2")]) is True
    # Then the ended turn kept nothing, and the open one its event
    assert row_events(store, "t-1") == []
    assert [e.text for e in row_events(store, "t-2")] == ["too late"]
    services.close()
