"""EmbeddedIndex: the SearchIndex port in the store's own SQLite file.

Words: an FTS5 table ranked by BM25. Meaning: exact cosine over a float32 matrix per agent held
in memory, filtered by agent, scope, kind and labels before scoring. The matrix follows the
table by sequence number (every upsert takes a new one), so any thread's query sees every
committed write without a full reload.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from ...domain.search.index import DocKind, Hit, IndexDoc, IndexFilter, SearchIndex
from ...domain.search.lexical import tokenize
from .database import Database


def match_expression(query: str) -> str | None:
    """User text never reaches MATCH raw: `api.example.com`, `what's` or `eu-west-1` are FTS5
    syntax errors. Each word is quoted and the words are OR-ed; stopwords are dropped."""
    terms = list(dict.fromkeys(tokenize(query)))
    return " OR ".join(f'"{t}"' for t in terms) if terms else None


@dataclass
class _Matrix:
    """One agent's vectors of one kind, with what the filters need, row for row."""

    dimensions: int
    last_seq: int = 0
    ids: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    vectors: Any = None  # np.ndarray (capacity, dimensions)
    alive: list[bool] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    scope: list[str] = field(default_factory=list)
    session: list[str | None] = field(default_factory=list)
    preview: list[bool] = field(default_factory=list)
    record_kind: list[str | None] = field(default_factory=list)
    labels: list[dict[str, str]] = field(default_factory=list)
    created: list[datetime] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def append(self, row: sqlite3.Row) -> None:
        doc_id = row["doc_id"]
        old = self.rows.get(doc_id)
        if old is not None:
            self.alive[old] = False
        n = len(self.ids)
        if self.vectors is None or n >= len(self.vectors):
            grown = np.zeros((max(1024, 2 * n), self.dimensions), dtype=np.float32)
            if self.vectors is not None:
                grown[:n] = self.vectors[:n]
            self.vectors = grown
        self.vectors[n] = np.frombuffer(row["vector"], dtype=np.float32)
        self.ids.append(doc_id)
        self.rows[doc_id] = n
        self.alive.append(True)
        self.status.append(row["status"])
        self.scope.append(row["scope"])
        self.session.append(row["session_id"])
        self.preview.append(bool(row["preview"]))
        self.record_kind.append(row["record_kind"])
        self.labels.append(json.loads(row["labels"]))
        self.created.append(datetime.fromisoformat(row["created_at"]))

    def mask(self, where: IndexFilter) -> Any:
        n = len(self.ids)
        keep = np.fromiter(
            (
                self.alive[i]
                and self.status[i] in where.statuses
                and _scope_ok(where, self.scope[i], self.session[i])
                and _preview_ok(where, self.preview[i])
                and (not where.record_kinds or self.record_kind[i] in where.record_kinds)
                and (not where.ids or self.ids[i] in where.ids)
                and all(self.labels[i].get(k) == v for k, v in where.labels.items())
                for i in range(n)
            ),
            dtype=bool,
            count=n,
        )
        return keep


def _scope_ok(where: IndexFilter, scope: str, session: str | None) -> bool:
    if scope == "agent":
        return where.include_agent
    return where.include_all_sessions or (
        where.session_id is not None and session == where.session_id
    )


def _preview_ok(where: IndexFilter, preview: bool) -> bool:
    return where.preview == "any" or preview == (where.preview == "only")


class EmbeddedIndex(SearchIndex):
    def __init__(self, db: Database, model_id: str | None, dimensions: int | None) -> None:
        self._db = db
        self._model_id = model_id
        self._dimensions = dimensions
        self._matrices: dict[tuple[str, str, str], _Matrix] = {}
        self._lock = threading.Lock()

    # -- writes -----------------------------------------------------------------------------

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        with self._db.write() as conn:
            self.upsert_in(conn, docs)

    def upsert_in(self, conn: sqlite3.Connection, docs: Sequence[IndexDoc]) -> None:
        """Write documents inside the caller's transaction (the store's commit)."""
        for doc in docs:
            found = conn.execute(
                "SELECT seq, version, model_id, vector FROM search_docs WHERE tenant = ?"
                " AND agent_id = ? AND kind = ? AND doc_id = ?",
                (doc.tenant, doc.agent_id, doc.kind, doc.id),
            ).fetchone()
            vector = (
                np.asarray(doc.vector, dtype=np.float32).tobytes()
                if doc.vector is not None
                else None
            )
            model_id = doc.model_id
            if found is not None:
                if found["version"] > doc.version:
                    continue  # an older version never overwrites a newer one
                if vector is None:
                    # A status change keeps the text, so it keeps the vector too.
                    vector, model_id = found["vector"], found["model_id"]
                conn.execute("DELETE FROM search_fts WHERE rowid = ?", (found["seq"],))
                conn.execute("DELETE FROM search_docs WHERE seq = ?", (found["seq"],))
            seq = conn.execute(
                "INSERT INTO search_docs (tenant, agent_id, kind, doc_id, version, scope,"
                " session_id, status, preview, record_kind, labels, created_at, model_id, vector)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    doc.tenant,
                    doc.agent_id,
                    doc.kind,
                    doc.id,
                    doc.version,
                    doc.scope,
                    doc.session_id,
                    doc.status,
                    int(doc.preview),
                    doc.record_kind,
                    json.dumps(doc.labels),
                    doc.created_at.isoformat(),
                    model_id,
                    vector,
                ),
            ).lastrowid
            conn.execute("INSERT INTO search_fts (rowid, text) VALUES (?, ?)", (seq, doc.text))

    def delete(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        with self._db.write() as conn:
            for doc_id in ids:
                found = conn.execute(
                    "SELECT seq FROM search_docs WHERE tenant = ? AND agent_id = ? AND kind = ?"
                    " AND doc_id = ?",
                    (tenant, agent_id, kind, doc_id),
                ).fetchone()
                if found is not None:
                    conn.execute("DELETE FROM search_fts WHERE rowid = ?", (found["seq"],))
                    conn.execute("DELETE FROM search_docs WHERE seq = ?", (found["seq"],))
        self._forget(tenant, agent_id)

    def delete_agent(self, tenant: str, agent_id: str) -> None:
        with self._db.write() as conn:
            self.delete_agent_in(conn, tenant, agent_id)
        self._forget(tenant, agent_id)

    def delete_agent_in(self, conn: sqlite3.Connection, tenant: str, agent_id: str) -> None:
        self.clear_agent_rows(conn, tenant, agent_id)
        self._forget(tenant, agent_id)

    @staticmethod
    def clear_agent_rows(conn: sqlite3.Connection, tenant: str, agent_id: str) -> None:
        conn.execute(
            "DELETE FROM search_fts WHERE rowid IN (SELECT seq FROM search_docs WHERE tenant = ?"
            " AND agent_id = ?)",
            (tenant, agent_id),
        )
        conn.execute(
            "DELETE FROM search_docs WHERE tenant = ? AND agent_id = ?", (tenant, agent_id)
        )

    def _forget(self, tenant: str, agent_id: str) -> None:
        with self._lock:
            for key in [k for k in self._matrices if k[:2] == (tenant, agent_id)]:
                del self._matrices[key]

    # -- queries ----------------------------------------------------------------------------

    def lexical(
        self, tenant: str, agent_id: str, query: str, where: IndexFilter, limit: int
    ) -> list[Hit]:
        expression = match_expression(query)
        if expression is None:
            return []
        sql = [
            "SELECT d.doc_id, bm25(search_fts) AS rank, d.created_at FROM search_fts",
            "JOIN search_docs d ON d.seq = search_fts.rowid",
            "WHERE search_fts MATCH ? AND d.tenant = ? AND d.agent_id = ? AND d.kind = ?",
        ]
        args: list[Any] = [expression, tenant, agent_id, where.kind]
        for column, values in (
            ("d.status", where.statuses),
            ("d.record_kind", where.record_kinds),
            ("d.doc_id", where.ids),
        ):
            if values:
                sql.append(f"AND {column} IN ({','.join('?' * len(values))})")
                args += list(values)
        if where.preview != "any":
            sql.append("AND d.preview = ?")
            args.append(1 if where.preview == "only" else 0)
        scopes = []
        if where.include_agent:
            scopes.append("d.scope = 'agent'")
        if where.include_all_sessions:
            scopes.append("d.scope = 'session'")
        elif where.session_id is not None:
            scopes.append("(d.scope = 'session' AND d.session_id = ?)")
            args.append(where.session_id)
        sql.append(f"AND ({' OR '.join(scopes)})" if scopes else "AND 0")
        for name, value in where.labels.items():
            sql.append("AND EXISTS (SELECT 1 FROM json_each(d.labels) WHERE key = ? AND value = ?)")
            args += [name, value]
        sql.append("ORDER BY rank LIMIT ?")
        args.append(limit)
        rows = self._db.read().execute(" ".join(sql), args).fetchall()
        return [Hit(row[0], -float(row[1]), datetime.fromisoformat(row[2])) for row in rows]

    def vector(
        self, tenant: str, agent_id: str, vector: Sequence[float], where: IndexFilter, limit: int
    ) -> list[Hit]:
        if self._model_id is None or self._dimensions is None:
            return []
        matrix = self._matrix(tenant, agent_id, where.kind)
        with matrix.lock:
            n = len(matrix.ids)
            if n == 0:
                return []
            keep = np.flatnonzero(matrix.mask(where))
            if keep.size == 0:
                return []
            query = np.asarray(vector, dtype=np.float32)
            scores = matrix.vectors[keep] @ query
            top = min(limit, keep.size)
            best = np.argpartition(-scores, top - 1)[:top]
            best = best[np.argsort(-scores[best])]
            return [
                Hit(matrix.ids[keep[i]], float(scores[i]), matrix.created[keep[i]]) for i in best
            ]

    def _matrix(self, tenant: str, agent_id: str, kind: str) -> _Matrix:
        key = (tenant, agent_id, kind)
        with self._lock:
            matrix = self._matrices.get(key)
            if matrix is None:
                assert self._dimensions is not None
                matrix = self._matrices[key] = _Matrix(self._dimensions)
        with matrix.lock:
            rows = (
                self._db.read()
                .execute(
                    "SELECT * FROM search_docs WHERE tenant = ? AND agent_id = ? AND kind = ?"
                    " AND seq > ? AND model_id = ? AND vector IS NOT NULL ORDER BY seq",
                    (tenant, agent_id, kind, matrix.last_seq, self._model_id),
                )
                .fetchall()
            )
            for row in rows:
                matrix.append(row)
                matrix.last_seq = row["seq"]
        return matrix
