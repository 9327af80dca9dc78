"""SqliteEntityLinks: the EntityLinks port in the store's SQLite file (domain/search/links.py).

`entity_docs` holds a row a linked document (its version, so an older one never overwrites a
newer; its rules' keys, its text and the model's keys of a text: links.Keys), `entity_links` a
row a (entity, document) mention. EmbeddedIndex writes both in the transaction that writes the
document's words (`link_in`), so links never lag the index; the model's keys come later, from
the background worker (entity_worker.py, `link_model_in`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime

from ...domain.kernel.errors import StorageUnavailable
from ...domain.search.index import DocKind, IndexDoc
from ...domain.search.links import Entity, EntityLinks, Keys, Mention
from .database import Database
from .faults import translated


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@translated
class SqliteEntityLinks(EntityLinks):
    def __init__(self, db: Database) -> None:
        self._db = db

    def _faults(self, exc: sqlite3.Error) -> StorageUnavailable | None:
        return self._db._faults(exc)

    # -- writes -------------------------------------------------------------------------------

    def link(self, docs: Sequence[IndexDoc]) -> list[IndexDoc]:
        with self._db.write() as conn:
            return self.link_in(conn, docs)

    @staticmethod
    def link_in(conn: sqlite3.Connection, docs: Sequence[IndexDoc]) -> list[IndexDoc]:
        """`link` inside the caller's transaction (the store's commit)."""
        pending = []
        for doc in docs:
            held = _held(conn, doc.tenant, doc.agent_id, doc.kind, doc.id)
            if held is not None and held["version"] > doc.version:
                continue  # an older version never overwrites a newer one
            keys = _keys(held).relinked(doc)
            _write(conn, doc, doc.version, keys)
            if keys.wants_model:
                pending.append(doc)
            elif held is not None:  # what a model was to read of it is not its text any more
                _unqueue(conn, doc.tenant, doc.agent_id, doc.kind, doc.id)
        return pending

    def link_model(self, doc: IndexDoc, sha: str, keys: Sequence[str]) -> bool:
        with self._db.write() as conn:
            return self.link_model_in(conn, doc, sha, keys)

    @staticmethod
    def link_model_in(
        conn: sqlite3.Connection, doc: IndexDoc, sha: str, keys: Sequence[str]
    ) -> bool:
        """`link_model` inside the caller's transaction (the worker's, which takes the document
        off the queue in it)."""
        held = _held(conn, doc.tenant, doc.agent_id, doc.kind, doc.id)
        if held is None or held["version"] > doc.version:
            return False
        answered = _keys(held).answered(sha, keys)
        if answered is None:
            return False
        _write(conn, doc, held["version"], answered)
        return True

    def unlink(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        with self._db.write() as conn:
            self.unlink_in(conn, tenant, agent_id, kind, ids)

    @staticmethod
    def unlink_in(
        conn: sqlite3.Connection, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]
    ) -> None:
        for doc_id in ids:
            _unlink_doc(conn, tenant, agent_id, kind, doc_id)
            _unqueue(conn, tenant, agent_id, kind, doc_id)

    def unlink_agent(self, tenant: str, agent_id: str) -> None:
        with self._db.write() as conn:
            self.unlink_agent_in(conn, tenant, agent_id)

    @staticmethod
    def unlink_agent_in(conn: sqlite3.Connection, tenant: str, agent_id: str) -> None:
        for table in ("entity_links", "entity_docs", "entity_queue"):
            conn.execute(
                f"DELETE FROM {table} WHERE tenant = ? AND agent_id = ?", (tenant, agent_id)
            )

    # -- reads --------------------------------------------------------------------------------

    def entities(
        self,
        tenant: str,
        agent_id: str,
        prefix: str,
        limit: int,
        after: str | None,
        mentions: int,
    ) -> list[Entity]:
        conn = self._db.read()
        rows = conn.execute(
            "SELECT entity, COUNT(*) AS n FROM entity_links WHERE tenant = ? AND agent_id = ?"
            " AND entity LIKE ? ESCAPE '\\' AND entity || '#' > ? GROUP BY entity"
            " ORDER BY entity || '#' LIMIT ?",
            # Ordered as `{entity}#` (a key in the cloud's table), so both shapes page alike.
            (tenant, agent_id, _escape_like(prefix) + "%", f"{after}#" if after else "", limit),
        ).fetchall()
        out = []
        for row in rows:
            newest = conn.execute(
                "SELECT kind, doc_id, created_at, session_id FROM entity_links WHERE tenant = ?"
                " AND agent_id = ? AND entity = ? ORDER BY created_at DESC, kind, doc_id"
                " LIMIT ?",
                (tenant, agent_id, row["entity"], mentions),
            ).fetchall()
            out.append(Entity(row["entity"], row["n"], tuple(_mention(m) for m in newest)))
        return out

    def mentions(
        self, tenant: str, agent_id: str, key: str, kind: DocKind, limit: int
    ) -> list[Mention]:
        rows = (
            self._db.read()
            .execute(
                "SELECT kind, doc_id, created_at, session_id FROM entity_links WHERE tenant = ?"
                " AND agent_id = ? AND entity = ? AND kind = ? ORDER BY created_at DESC, doc_id"
                " LIMIT ?",
                (tenant, agent_id, key, kind, limit),
            )
            .fetchall()
        )
        return [_mention(row) for row in rows]

    def entities_of(
        self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]
    ) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        unique = list(dict.fromkeys(ids))
        conn = self._db.read()
        for at in range(0, len(unique), 500):  # inside SQLite's bound parameters
            chunk = unique[at : at + 500]
            rows = conn.execute(
                "SELECT doc_id, entity FROM entity_links WHERE tenant = ? AND agent_id = ?"
                f" AND kind = ? AND doc_id IN ({', '.join('?' * len(chunk))}) ORDER BY entity",
                (tenant, agent_id, kind, *chunk),
            ).fetchall()
            for row in rows:
                out.setdefault(row["doc_id"], []).append(row["entity"])
        return {doc_id: tuple(keys) for doc_id, keys in out.items()}


def _held(
    conn: sqlite3.Connection, tenant: str, agent_id: str, kind: str, doc_id: str
) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT version, rules, text_sha, model, model_sha FROM entity_docs WHERE tenant = ?"
        " AND agent_id = ? AND kind = ? AND doc_id = ?",
        (tenant, agent_id, kind, doc_id),
    ).fetchone()
    return row


def _keys(row: sqlite3.Row | None) -> Keys:
    if row is None:
        return Keys()
    # A row linked before model keys were kept (rules NULL) has none, and no text to answer.
    return Keys(
        rules=tuple(json.loads(row["rules"] or "[]")),
        text_sha=row["text_sha"],
        model=tuple(json.loads(row["model"] or "[]")),
        model_sha=row["model_sha"],
    )


def _write(conn: sqlite3.Connection, doc: IndexDoc, version: int, keys: Keys) -> None:
    """The document's head and its mentions, those of `keys`, in place of what it had."""
    _unlink_doc(conn, doc.tenant, doc.agent_id, doc.kind, doc.id)
    conn.execute(
        "INSERT INTO entity_docs (tenant, agent_id, kind, doc_id, version, rules, text_sha,"
        " model, model_sha) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            doc.tenant,
            doc.agent_id,
            doc.kind,
            doc.id,
            version,
            json.dumps(keys.rules),
            keys.text_sha,
            json.dumps(keys.model),
            keys.model_sha,
        ),
    )
    conn.executemany(
        "INSERT OR IGNORE INTO entity_links (tenant, agent_id, entity, kind, doc_id,"
        " created_at, session_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                doc.tenant,
                doc.agent_id,
                key,
                doc.kind,
                doc.id,
                _fixed(doc.created_at),
                doc.session_id,
            )
            for key in keys.union
        ],
    )


def _unqueue(conn: sqlite3.Connection, tenant: str, agent_id: str, kind: str, doc_id: str) -> None:
    conn.execute(
        "DELETE FROM entity_queue WHERE tenant = ? AND agent_id = ? AND kind = ? AND doc_id = ?",
        (tenant, agent_id, kind, doc_id),
    )


def _unlink_doc(
    conn: sqlite3.Connection, tenant: str, agent_id: str, kind: str, doc_id: str
) -> None:
    for table in ("entity_links", "entity_docs"):
        conn.execute(
            f"DELETE FROM {table} WHERE tenant = ? AND agent_id = ? AND kind = ? AND doc_id = ?",
            (tenant, agent_id, kind, doc_id),
        )


def _fixed(at: datetime) -> str:
    # Fixed-width UTC text, so string order is time order.
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


def _mention(row: sqlite3.Row) -> Mention:
    return Mention(
        kind=row["kind"],
        id=row["doc_id"],
        created_at=datetime.fromisoformat(row["created_at"]),
        session_id=row["session_id"],
    )
