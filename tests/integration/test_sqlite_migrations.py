"""An embedded data file made by an earlier version is migrated in place at start, and keeps
everything: here the words index of migration 4, partitioned by owner in migration 9 and given
a context column (words said before a history event) in migration 10."""

from __future__ import annotations

import sqlite3

from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.adapters.sqlite.migrations import MIGRATIONS
from agent_memory.domain.search.index import IndexFilter


def test_a_file_from_before_the_owner_partition_keeps_its_words(tmp_path):
    path = tmp_path / "agent-memory.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY)")
    for version, statements in enumerate(MIGRATIONS[:8], start=1):
        for statement in statements:
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations (version) VALUES (?)", (version,))
    rows = [
        ("acme", "teams/web", "rec_1", "Releases ship on Tuesdays"),
        ("acme", "teams/ops", "rec_2", "Releases ship on Fridays"),
    ]
    for tenant, agent, doc_id, text in rows:
        seq = conn.execute(
            "INSERT INTO search_docs (tenant, agent_id, kind, doc_id, version, scope, status,"
            " preview, labels, created_at) VALUES (?, ?, 'record', ?, 1, 'agent', 'ACTIVE', 0,"
            " '{}', '2026-11-30T00:00:00+00:00')",
            (tenant, agent, doc_id),
        ).lastrowid
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
    contexts = store.db.read().execute("SELECT context FROM search_fts").fetchall()
    assert [tuple(row) for row in contexts] == [("",), ("",)]
    versions = store.db.read().execute("SELECT max(version) FROM schema_migrations").fetchone()
    assert versions[0] == len(MIGRATIONS)
    store.close()
