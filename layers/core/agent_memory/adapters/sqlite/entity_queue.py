"""The queue of documents whose text the entity model has not read yet (domain/search/
entity_model.py), in the store's SQLite file: its schema (migration 24) and its write, made in the
transaction that indexes and links the document, so the write never waits for the model and a
restart resumes where the queue stands. The background worker (entity_worker.py) reads it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from ...domain.search.index import IndexDoc
from ...domain.search.links import text_sha

ENTITY_MODEL_STEPS: list[str | Callable[[sqlite3.Connection], None]] = [
    # Each linked document's rules' keys, its text and the model's keys of a text (links.Keys).
    "ALTER TABLE entity_docs ADD COLUMN rules TEXT",
    "ALTER TABLE entity_docs ADD COLUMN text_sha TEXT",
    "ALTER TABLE entity_docs ADD COLUMN model TEXT",
    "ALTER TABLE entity_docs ADD COLUMN model_sha TEXT",
    # A newer version of a document takes its older one's place, at the back.
    """CREATE TABLE entity_queue (
        qseq INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        doc_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        text_sha TEXT NOT NULL,
        text TEXT NOT NULL,
        created_at TEXT NOT NULL,
        session_id TEXT,
        turn_id TEXT,
        UNIQUE (tenant, agent_id, kind, doc_id)
    )""",
]


def queue_entities_in(conn: sqlite3.Connection, docs: Sequence[IndexDoc]) -> None:
    """Queue the documents for the entity model, each in place of an older version's entry."""
    conn.executemany(
        "INSERT OR REPLACE INTO entity_queue (tenant, agent_id, kind, doc_id, version, text_sha,"
        " text, created_at, session_id, turn_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                doc.tenant,
                doc.agent_id,
                doc.kind,
                doc.id,
                doc.version,
                text_sha(doc.text),
                doc.text,
                doc.created_at.isoformat(),
                doc.session_id,
                doc.embed.turn_id if doc.embed is not None else None,
            )
            for doc in docs
        ],
    )
