"""An embedded data file made by an earlier version is migrated in place at start, and keeps
everything: here the words index of migration 4, partitioned by owner in migration 9, given
a context column (words said before a history event) in migration 10, split into a table per
tenant and kind in migration 16 and tokenized anew for every script in migration 17; and records
from before expiry (migration 20) and version times (migration 21)."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta

from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.adapters.sqlite.database import owner_key
from agent_memory.adapters.sqlite.migrations import MIGRATIONS
from agent_memory.adapters.sqlite.words import words_table
from agent_memory.domain.records.models import (
    Provenance,
    Record,
    RecordOperation,
    RecordQuery,
    RecordVersion,
    to_doc,
    version_to_doc,
)
from agent_memory.domain.search.index import IndexFilter


def test_a_file_from_before_the_owner_partition_keeps_its_words(tmp_path):
    path = tmp_path / "agent-memory.sqlite3"
    conn = _file_at(path, 8)
    rows = [
        ("acme", "teams/web", "rec_1", "Releases ship on Tuesdays"),
        ("acme", "teams/ops", "rec_2", "Releases ship on Fridays"),
    ]
    for tenant, agent, doc_id, text in rows:
        seq = _doc_row(conn, tenant, agent, doc_id)
        conn.execute("INSERT INTO search_fts (rowid, text) VALUES (?, ?)", (seq, text))
    conn.close()

    store = SqliteStore(path)
    index = store.attach_index(None, None)
    where = IndexFilter(kind="record")
    assert [
        h.id for h in index.lexical("acme", "teams/web", "when do releases ship", where, 5)
    ] == ["rec_1"]
    assert [h.id for h in index.lexical("acme", "teams/ops", "releases", where, 5)] == ["rec_2"]
    assert index.lexical("other", "teams/web", "releases", where, 5) == []
    contexts = (
        store.db.read().execute(f"SELECT context FROM {words_table('acme', 'record')}").fetchall()
    )
    assert [tuple(row) for row in contexts] == [("",), ("",)]
    versions = store.db.read().execute("SELECT max(version) FROM schema_migrations").fetchone()
    assert versions[0] == len(MIGRATIONS)
    store.close()


def _file_at(path, version):
    """A data file as the code of `version` migrations left it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")
    conn.create_function("owner_key", 3, owner_key, deterministic=True)  # as Database does
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY)")
    for number, statements in enumerate(MIGRATIONS[:version], start=1):
        for statement in statements:
            if callable(statement):
                statement(conn)
            else:
                conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations (version) VALUES (?)", (number,))
    return conn


def _doc_row(conn, tenant, agent, doc_id, kind="record"):
    """A document's row in search_docs; its sequence number (the words table's rowid)."""
    return conn.execute(
        "INSERT INTO search_docs (tenant, agent_id, kind, doc_id, version, scope, status,"
        " preview, labels, created_at) VALUES (?, ?, ?, ?, 1, 'agent', 'ACTIVE', 0,"
        " '{}', '2026-11-30T00:00:00+00:00')",
        (tenant, agent, kind, doc_id),
    ).lastrowid


def test_the_shared_words_table_is_split_by_tenant_and_kind_and_keeps_every_word(tmp_path):
    path = tmp_path / "agent-memory.sqlite3"
    conn = _file_at(path, 15)
    rows = [
        ("acme", "rec_1", "record", "Releases ship on Tuesdays", ""),
        ("acme", "evt_1", "event", "ship it", "are we ready for the release"),
        ("globex", "rec_9", "record", "Releases ship on Fridays", ""),
    ]
    for tenant, doc_id, kind, text, context in rows:
        seq = _doc_row(conn, tenant, "teams/web", doc_id, kind)
        conn.execute(
            "INSERT INTO search_fts (rowid, text, owner, context) VALUES (?, ?, ?, ?)",
            (seq, text, owner_key(tenant, "teams/web", kind), context),
        )
    conn.close()

    store = SqliteStore(path)
    index = store.attach_index(None, None)

    def found(tenant, kind, query):
        return [h.id for h in index.lexical(tenant, "teams/web", query, IndexFilter(kind=kind), 5)]

    assert found("acme", "record", "release ship") == ["rec_1"]
    assert found("acme", "event", "release") == ["evt_1"]  # by its context's words
    assert found("globex", "record", "releases") == ["rec_9"]
    assert found("globex", "event", "releases") == []  # a kind it never wrote: no table
    read = store.db.read()
    tables = {
        row[0]
        for row in read.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")
        if row[0].startswith("search_")
    }
    assert "search_fts" not in tables
    made = {("acme", "record"), ("acme", "event"), ("globex", "record")}
    assert {words_table(*owner) for owner in made} <= tables
    assert words_table("globex", "event") not in tables
    for owner in made:
        assert read.execute(f"SELECT count(*) FROM {words_table(*owner)}").fetchone()[0] == 1
    store.close()


def test_words_stored_before_every_script_was_split_are_split_anew_and_none_is_lost(tmp_path):
    # Given a file of migration 16, its words tables made with the tokenizer of then (Japanese
    # and Korean runs one word each, marks separators), holding texts of several scripts
    path = tmp_path / "agent-memory.sqlite3"
    conn = _file_at(path, 16)
    rows = [
        ("rec_ja", "record", "これは日本語です", ""),
        ("rec_ko", "record", "이건 한국어야", ""),
        ("rec_hi", "record", "हिन्दी में लिखा गया संदेश", ""),
        ("rec_en", "record", "Releases ship on Tuesdays", ""),
        ("evt_1", "event", "了解しました", "明日の会議は何時ですか"),
    ]
    for doc_id, kind, text, context in rows:
        table = words_table("acme", kind)
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5(text, owner, context,"
            " tokenize = 'porter unicode61')"
        )
        seq = _doc_row(conn, "acme", "teams/web", doc_id, kind)
        conn.execute(
            f"INSERT INTO {table} (rowid, text, owner, context) VALUES (?, ?, ?, ?)",
            (seq, text, owner_key("acme", "teams/web", kind), context),
        )
    conn.close()

    # When the store opens it (migration 17)
    store = SqliteStore(path)
    index = store.attach_index(None, None)

    def found(kind, query):
        return [h.id for h in index.lexical("acme", "teams/web", query, IndexFilter(kind=kind), 5)]

    # Then every document is found by a word from inside it, English as before
    assert found("record", "日本語") == ["rec_ja"]
    assert found("record", "한국어") == ["rec_ko"]
    assert found("record", "लिखा गया") == ["rec_hi"]
    assert found("record", "when do releases ship") == ["rec_en"]
    assert found("event", "会議") == ["evt_1"]  # by the words said before it
    read = store.db.read()
    for kind, count in (("record", 4), ("event", 1)):
        table = words_table("acme", kind)
        assert read.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == count
        sql = read.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (table,)).fetchone()
        assert "Mc Mn" in sql[0]
    store.close()


def test_records_from_before_expiry_and_version_times_read_as_they_did(tmp_path):
    # Given a file of migration 19 holding a record with two versions, written as that code did
    path = tmp_path / "agent-memory.sqlite3"
    conn = _file_at(path, 19)
    made = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    conn.execute(
        "INSERT INTO agents (tenant, agent_id, manifest_version, manifest, created_at, updated_at)"
        " VALUES ('acme', 'teams/web', 1, '{}', ?, ?)",
        (made.isoformat(), made.isoformat()),
    )
    first = Record(
        tenant="acme",
        agent_id="teams/web",
        id="rec_1",
        scope="agent",
        summary="Releases ship on Tuesdays",
        kind="fact",
        provenance=Provenance(actor="agent"),
        created_at=made,
        updated_at=made,
    )
    pinned = first.model_copy(
        update={"pinned": True, "version": 2, "updated_at": made + timedelta(hours=1)}
    )
    conn.execute(
        "INSERT INTO records (tenant, agent_id, record_id, scope, session_id, status, kind,"
        " preview, pinned, version, doc) VALUES ('acme', 'teams/web', 'rec_1', 'agent', NULL,"
        " 'ACTIVE', 'fact', 0, 1, 2, ?)",
        (json.dumps(to_doc(pinned)),),
    )
    for record in (first, pinned):
        version = RecordVersion(
            record=record,
            operation=RecordOperation.CREATE,
            changed_by=record.provenance,
            at=record.updated_at,
        )
        conn.execute(
            "INSERT INTO record_versions (tenant, agent_id, record_id, version, doc)"
            " VALUES ('acme', 'teams/web', 'rec_1', ?, ?)",
            (record.version, json.dumps(version_to_doc(version))),
        )
    conn.close()

    # When the store opens it (migrations 20 and 21 run)
    store = SqliteStore(path)

    # Then the record never expires, and as-of reads find each version by its time
    (head,) = store.find_records("acme", "teams/web", RecordQuery(), 10, None)
    assert (head.expires_at, head.version) == (None, 2)
    at = made + timedelta(minutes=30)
    assert [r.version for r in store.records_at("acme", "teams/web", ["rec_1"], at)] == [1]
    found = store.find_records_at("acme", "teams/web", RecordQuery(), at, 10, None)
    assert [(r.id, r.version, r.pinned) for r in found] == [("rec_1", 1, False)]
    assert store.records_at("acme", "teams/web", ["rec_1"], made - timedelta(seconds=1)) == []
    store.close()


def test_a_first_start_says_its_migrations_in_one_line_and_a_second_start_says_nothing(
    tmp_path, caplog
):
    import logging

    # Given a new data file: every migration is applied, and said once, not once each
    with caplog.at_level(logging.INFO, logger="agent_memory.adapters.sqlite.database"):
        SqliteStore(tmp_path / "db.sqlite3").close()
    said = [r.getMessage() for r in caplog.records if "migration" in r.getMessage()]
    assert said == [f"schema migrations 1-{len(MIGRATIONS)} applied"]
    # When the same file is opened again, then there is nothing to apply and nothing said
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="agent_memory.adapters.sqlite.database"):
        SqliteStore(tmp_path / "db.sqlite3").close()
    assert not [r for r in caplog.records if "migration" in r.getMessage()]
