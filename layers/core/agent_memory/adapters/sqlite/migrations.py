"""Schema migrations, applied in order once each. Never edit a released entry: append a new one.
A step is an SQL statement, or a function of the connection for what SQL alone cannot say."""

import sqlite3
from collections.abc import Callable
from datetime import datetime

from ...domain.kernel.durations import instant_key
from .entity_queue import ENTITY_MODEL_STEPS
from .index_repairs import INDEX_REPAIR_STEPS
from .words import retokenize, split_by_tenant

Step = str | Callable[[sqlite3.Connection], None]


def _version_times(conn: sqlite3.Connection) -> None:
    """record_versions.at, filled in from each version's document."""
    conn.execute("ALTER TABLE record_versions ADD COLUMN at TEXT")
    rows = conn.execute(
        "SELECT tenant, agent_id, record_id, version, json_extract(doc, '$.at')"
        " FROM record_versions"
    ).fetchall()
    conn.executemany(
        "UPDATE record_versions SET at = ? WHERE tenant = ? AND agent_id = ? AND record_id = ?"
        " AND version = ?",
        [
            (instant_key(datetime.fromisoformat(at)), tenant, agent_id, record_id, version)
            for tenant, agent_id, record_id, version, at in rows
        ],
    )


MIGRATIONS: list[list[Step]] = [
    # 1: agents, manifest versions, sessions, turns
    [
        """CREATE TABLE agents (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            manifest_version INTEGER NOT NULL,
            manifest TEXT NOT NULL,
            forked_from TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE manifest_versions (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            manifest TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, version),
            FOREIGN KEY (tenant, agent_id) REFERENCES agents ON DELETE CASCADE
        ) WITHOUT ROWID""",
        """CREATE TABLE sessions (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            last_sequence INTEGER NOT NULL DEFAULT 0,
            metadata TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, session_id),
            FOREIGN KEY (tenant, agent_id) REFERENCES agents ON DELETE CASCADE
        ) WITHOUT ROWID""",
        """CREATE TABLE turns (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            turn_id TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            status TEXT NOT NULL,
            preview INTEGER NOT NULL,
            replay_of TEXT,
            started_by TEXT NOT NULL,
            trigger_run_id TEXT,
            manifest_version INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            ended_at TEXT,
            PRIMARY KEY (tenant, agent_id, session_id, turn_id),
            UNIQUE (tenant, agent_id, session_id, sequence),
            FOREIGN KEY (tenant, agent_id, session_id) REFERENCES sessions ON DELETE CASCADE
        ) WITHOUT ROWID""",
    ],
    # 2: record memory, its versions, and each turn's executions and staged effects
    [
        """CREATE TABLE records (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            record_id TEXT NOT NULL,
            scope TEXT NOT NULL,
            session_id TEXT,
            status TEXT NOT NULL,
            kind TEXT NOT NULL,
            preview INTEGER NOT NULL,
            pinned INTEGER NOT NULL,
            version INTEGER NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, record_id),
            FOREIGN KEY (tenant, agent_id) REFERENCES agents ON DELETE CASCADE
        ) WITHOUT ROWID""",
        """CREATE TABLE record_versions (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            record_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, record_id, version),
            FOREIGN KEY (tenant, agent_id, record_id) REFERENCES records ON DELETE CASCADE
        ) WITHOUT ROWID""",
        """CREATE TABLE executions (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            turn_id TEXT NOT NULL,
            execution_id TEXT NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, session_id, turn_id, execution_id),
            FOREIGN KEY (tenant, agent_id, session_id, turn_id) REFERENCES turns ON DELETE CASCADE
        ) WITHOUT ROWID""",
        """CREATE TABLE effects (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            turn_id TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            effect_id TEXT NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, session_id, turn_id, sequence),
            UNIQUE (tenant, agent_id, session_id, turn_id, effect_id),
            FOREIGN KEY (tenant, agent_id, session_id, turn_id) REFERENCES turns ON DELETE CASCADE
        ) WITHOUT ROWID""",
    ],
    # 3: file memory (/memories/**/*.md), its versions, and each session's memory index
    [
        """CREATE TABLE files (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            path TEXT NOT NULL,
            content TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            content_sha256 TEXT NOT NULL,
            description TEXT,
            version INTEGER NOT NULL,
            updated_at TEXT NOT NULL,
            updated_by TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, path),
            FOREIGN KEY (tenant, agent_id) REFERENCES agents ON DELETE CASCADE
        ) WITHOUT ROWID""",
        """CREATE TABLE file_versions (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            version_id TEXT NOT NULL,
            path TEXT NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, version_id),
            FOREIGN KEY (tenant, agent_id) REFERENCES agents ON DELETE CASCADE
        ) WITHOUT ROWID""",
        "CREATE INDEX file_versions_by_path ON file_versions (tenant, agent_id, path, version_id)",
        """CREATE TABLE session_index (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            text TEXT NOT NULL,
            built_at TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, session_id),
            FOREIGN KEY (tenant, agent_id, session_id) REFERENCES sessions ON DELETE CASCADE
        ) WITHOUT ROWID""",
    ],
    # 4: the embedded search index (FTS5 for words, float32 vectors for meaning)
    [
        """CREATE TABLE search_docs (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            scope TEXT NOT NULL,
            session_id TEXT,
            status TEXT NOT NULL,
            preview INTEGER NOT NULL,
            record_kind TEXT,
            labels TEXT NOT NULL,
            created_at TEXT NOT NULL,
            model_id TEXT,
            vector BLOB,
            UNIQUE (tenant, agent_id, kind, doc_id)
        )""",
        "CREATE INDEX search_docs_by_agent ON search_docs (tenant, agent_id, kind, seq)",
        "CREATE VIRTUAL TABLE search_fts USING fts5(text, tokenize = 'porter unicode61')",
    ],
    # 5: usage of models (purpose embed or memory), per turn and per agent
    [
        """CREATE TABLE usage (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            usage_id TEXT NOT NULL,
            turn_id TEXT,
            purpose TEXT NOT NULL,
            model_id TEXT NOT NULL,
            input_tokens INTEGER NOT NULL,
            output_tokens INTEGER NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, usage_id),
            FOREIGN KEY (tenant, agent_id) REFERENCES agents ON DELETE CASCADE
        ) WITHOUT ROWID""",
        "CREATE INDEX usage_by_turn ON usage (tenant, agent_id, turn_id, usage_id)",
    ],
    # 6: session history, as each turn keeps it
    [
        """CREATE TABLE history_events (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            event_id TEXT NOT NULL,
            turn_id TEXT NOT NULL,
            turn_sequence INTEGER NOT NULL,
            sequence INTEGER NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, session_id, event_id),
            FOREIGN KEY (tenant, agent_id, session_id, turn_id) REFERENCES turns ON DELETE CASCADE
        ) WITHOUT ROWID""",
        "CREATE INDEX history_in_order ON history_events"
        " (tenant, agent_id, session_id, turn_sequence, sequence)",
    ],
    # 7: post-turn extraction: each turn's review, and how far each session was reviewed.
    # The queued and running reviews are the embedded worker's queue: they survive a restart.
    [
        "ALTER TABLE turns ADD COLUMN extraction TEXT",
        "ALTER TABLE turns ADD COLUMN extraction_status TEXT",
        "CREATE INDEX turns_by_extraction ON turns (extraction_status, ended_at)"
        " WHERE extraction_status IN ('queued', 'running')",
        "ALTER TABLE sessions ADD COLUMN reviewed_through INTEGER NOT NULL DEFAULT 0",
    ],
    # 8: which turns a finished review has read (each turn's messages are reviewed once)
    ["ALTER TABLE turns ADD COLUMN reviewed INTEGER NOT NULL DEFAULT 0"],
    # 9: the words table partitioned by owner (tenant, agent, kind) through a matched column, so
    # a query walks the agent's documents only (owner_key is registered on every connection).
    [
        "CREATE VIRTUAL TABLE search_words USING fts5(text, owner, tokenize = 'porter unicode61')",
        "INSERT INTO search_words (rowid, text, owner) SELECT f.rowid, f.text,"
        " owner_key(d.tenant, d.agent_id, d.kind) FROM search_fts f"
        " JOIN search_docs d ON d.seq = f.rowid",
        "DROP TABLE search_fts",
        "ALTER TABLE search_words RENAME TO search_fts",
    ],
    # 10: a context column: the words said just before a history event, which find it too (at a
    # lower weight). Events indexed before it have none until `agent-memory reindex --all`.
    [
        "CREATE VIRTUAL TABLE search_words USING fts5(text, owner, context,"
        " tokenize = 'porter unicode61')",
        "INSERT INTO search_words (rowid, text, owner, context)"
        " SELECT rowid, text, owner, '' FROM search_fts",
        "DROP TABLE search_fts",
        "ALTER TABLE search_words RENAME TO search_fts",
    ],
    # 11: each tenant's own file memory limits (a tenant with none keeps the deployment's), and
    # the changes preview turns made to file memories, seen by preview turns only
    [
        "CREATE TABLE tenant_limits (tenant TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID",
        """CREATE TABLE preview_files (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            path TEXT NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, path),
            FOREIGN KEY (tenant, agent_id) REFERENCES agents ON DELETE CASCADE
        ) WITHOUT ROWID""",
    ],
    # 12: vectors are added after the write that indexed a document's words, by the background
    # embedder: each document waiting for one, with the text to embed and whom to bill for it.
    # A newer version of a document takes its older one's place in the queue.
    [
        """CREATE TABLE embed_queue (
            qseq INTEGER PRIMARY KEY AUTOINCREMENT,
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            text TEXT NOT NULL,
            session_id TEXT,
            turn_id TEXT,
            UNIQUE (tenant, agent_id, kind, doc_id)
        )""",
        "CREATE INDEX embed_queue_by_turn ON embed_queue (tenant, agent_id, turn_id)",
    ],
    # 13: the subject that started each session (a `sessions:own` token reaches only its own)
    ["ALTER TABLE sessions ADD COLUMN owner TEXT"],
    # 14: the audit trail: every change the API made, by whom (never deleted with an agent or a
    # tenant reset: it is the record of them)
    [
        """CREATE TABLE audit (
            tenant TEXT NOT NULL,
            audit_id TEXT NOT NULL,
            agent_id TEXT,
            actor TEXT NOT NULL,
            expires_at TEXT,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, audit_id)
        ) WITHOUT ROWID""",
    ],
    # 15: the facts the last review that read a turn proposed from each of its events (JSON, one
    # entry an event: history_keys.EventKeys), which find those events in history search
    ["ALTER TABLE turns ADD COLUMN fact_keys TEXT"],
    # 16: the words index split by tenant (words.py): BM25's statistics were the whole file's, so
    # what one tenant stored moved another's scores
    [split_by_tenant],
    # 17: words of every script (words.py): Japanese, Korean, Thai... as characters and their
    # pairs, marks kept in their words, text folded as queries are
    [retokenize],
    # 18: what each call of a committed turn changed (JSON list of MemoryUpdate), the session's
    # record of its memory.updated events
    ["ALTER TABLE turns ADD COLUMN memory_updates TEXT"],
    # 19: named manifests, each version kept (agents follow a name; a tenant's, not an agent's)
    [
        """CREATE TABLE named_manifests (
            tenant TEXT NOT NULL,
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, name)
        ) WITHOUT ROWID""",
        """CREATE TABLE named_manifest_versions (
            tenant TEXT NOT NULL,
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, name, version)
        ) WITHOUT ROWID""",
    ],
    # 20: when each record expires and when it is purged (UTC, fixed-width text: string order
    # is time order), so a listing judges expiry in SQL at the instant it is read and the
    # sweeper finds what is due
    [
        "ALTER TABLE records ADD COLUMN expires_at TEXT",
        "ALTER TABLE records ADD COLUMN purge_at TEXT",
        "CREATE INDEX records_by_expiry ON records (expires_at) WHERE expires_at IS NOT NULL",
        "CREATE INDEX records_by_purge ON records (purge_at) WHERE purge_at IS NOT NULL",
    ],
    # 21: when each record version was made (fixed-width UTC text), so an as-of read finds the
    # version current at a past instant with one index seek per record
    [
        _version_times,
        "CREATE INDEX record_versions_by_time ON record_versions (tenant, agent_id, record_id, at)",
    ],
    # 22: each consolidation run of an agent (domain/extraction/consolidation.py), newest by id
    [
        """CREATE TABLE consolidations (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            run_id TEXT NOT NULL,
            doc TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, run_id),
            FOREIGN KEY (tenant, agent_id) REFERENCES agents ON DELETE CASCADE
        ) WITHOUT ROWID""",
    ],
    # 23: entity links (adapters/sqlite/entity_links.py): each linked search document's version,
    # and a row an entity it mentions, listed by entity and removed by document
    [
        """CREATE TABLE entity_docs (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            PRIMARY KEY (tenant, agent_id, kind, doc_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE entity_links (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            entity TEXT NOT NULL,
            kind TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            created_at TEXT NOT NULL,
            session_id TEXT,
            PRIMARY KEY (tenant, agent_id, entity, kind, doc_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX entity_links_by_doc ON entity_links (tenant, agent_id, kind, doc_id)",
    ],
    # 24: model-backed entity keys and the queue of texts the model has not read yet
    ENTITY_MODEL_STEPS,
    # 25: the committed turns holding events kept before ids included the session, whose
    # documents are written again under names that do
    INDEX_REPAIR_STEPS,
]
