"""EmbeddedIndex: the SearchIndex port in the store's own SQLite file.

Words: an FTS5 table ranked by BM25, written in the store's own transactions (words.py, searched in
lexical.py). Meaning: exact cosine over a float32 matrix per agent held in memory, filtered by
agent, scope, kind and labels before scoring (vector_matrix.py). A write queues its documents'
vectors (`embed_queue`); the background embedder (vectors.py) adds them later. The matrix follows
the table by sequence number (every upsert, and every vector added, takes a new one), so any
thread's query sees every committed write without a full reload.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from ...domain.kernel.errors import StorageUnavailable
from ...domain.search.index import DocKind, Hit, IndexDoc, IndexFilter, SearchIndex
from .database import Database, owner_key
from .entity_links import SqliteEntityLinks
from .entity_queue import queue_entities_in
from .faults import translated
from .lexical import lexical_hits, match_expression
from .vector_matrix import Matrix, nearest
from .words import ensure_words_table, flush_words, hold_words, index_texts, insert_words

# search_docs' columns but its sequence number and vector, in order.
_DOC_COLUMNS = (
    "tenant",
    "agent_id",
    "kind",
    "doc_id",
    "version",
    "scope",
    "session_id",
    "status",
    "preview",
    "record_kind",
    "labels",
    "created_at",
)


class Queued(NamedTuple):
    """A document waiting for its vector: the text to embed and whom the embedding is for."""

    qseq: int
    tenant: str
    agent_id: str
    kind: str
    doc_id: str
    text: str
    session_id: str | None
    turn_id: str | None


@translated
class EmbeddedIndex(SearchIndex):
    def __init__(self, db: Database, model_id: str | None, dimensions: int | None) -> None:
        self._db = db
        self._model_id = model_id
        self._dimensions = dimensions
        self._matrices: dict[tuple[str, str, str], Matrix] = {}
        self._lock = threading.Lock()
        self.links = SqliteEntityLinks(db)
        self.entity_model = False  # whether a model adds keys to the rules' (bootstrap sets it)
        db.at_batch_end(flush_words)

    def _faults(self, exc: sqlite3.Error) -> StorageUnavailable | None:
        return self._db._faults(exc)

    # -- writes -----------------------------------------------------------------------------

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        with self._db.write() as conn:
            self.upsert_in(conn, docs)

    def upsert_in(self, conn: sqlite3.Connection, docs: Sequence[IndexDoc]) -> None:
        """Write documents inside the caller's transaction (the store's commit)."""
        flushed = False
        # In a batch the words wait for its end (words.py): one FTS5 segment a batch. The
        # tables are made once a batch (its memo; a savepoint rolled back clears it, and with it
        # a table the savepoint made), once a call outside one.
        hold = self._db.in_batch()
        if hold and docs:
            self._db.memoized(("words_held",), lambda: hold_words(conn))
        tables: dict[tuple[str, str], str] = {}
        for doc in docs:
            table = tables.get((doc.tenant, doc.kind))
            if table is None:
                table = tables[doc.tenant, doc.kind] = self._db.memoized(
                    ("words_table", doc.tenant, doc.kind),
                    partial(ensure_words_table, conn, doc.tenant, doc.kind),
                )
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
                if vector is None and doc.embed is None:
                    # A status change keeps the text, so it keeps the vector too.
                    vector, model_id = found["vector"], found["model_id"]
                if not flushed:
                    self._words_current(conn)  # its words may still be held
                    flushed = True
                conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (found["seq"],))
                conn.execute("DELETE FROM search_docs WHERE seq = ?", (found["seq"],))
            self._insert(conn, table, doc, model_id, vector, *index_texts(doc), hold=hold)
            pending = SqliteEntityLinks.link_in(conn, [doc])
            if pending and self.entity_model:  # the model reads it later (entity_worker.py)
                queue_entities_in(conn, pending)
            if doc.embed is not None and vector is None and self._model_id is not None:
                self._queue(conn, doc)

    def _insert(
        self,
        conn: sqlite3.Connection,
        table: str,
        doc: IndexDoc | sqlite3.Row,
        model_id: str | None,
        vector: bytes | None,
        text: str,
        context: str,
        *,
        hold: bool = False,
    ) -> None:
        """The document's row at the next sequence number (where the vector matrices pick it
        up), with its words in `table`, its tenant's and kind's (`ensure_words_table`), or
        held until the batch ends (`hold`)."""
        if isinstance(doc, sqlite3.Row):
            values = tuple(doc[c] for c in _DOC_COLUMNS)
            owner = owner_key(doc["tenant"], doc["agent_id"], doc["kind"])
        else:
            values = (
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
            )
            owner = owner_key(doc.tenant, doc.agent_id, doc.kind)
        seq = conn.execute(
            f"INSERT INTO search_docs ({', '.join(_DOC_COLUMNS)}, model_id, vector)"
            f" VALUES ({', '.join('?' * (len(_DOC_COLUMNS) + 2))})",
            (*values, model_id, vector),
        ).lastrowid
        assert seq is not None  # an INSERT's row
        insert_words(conn, table, seq, text, owner, context, hold=hold)

    def _words_current(self, conn: sqlite3.Connection) -> None:
        """Before words are read or deleted in a batch: the words it holds are in their tables."""
        if self._db.in_batch():
            flush_words(conn)

    @staticmethod
    def _queue(conn: sqlite3.Connection, doc: IndexDoc) -> None:
        """Queue the document for the background embedder, in place of an older version."""
        assert doc.embed is not None
        key = (doc.tenant, doc.agent_id, doc.kind, doc.id)
        # REPLACE deletes an older version's entry and queues this one at the back.
        conn.execute(
            "INSERT OR REPLACE INTO embed_queue (tenant, agent_id, kind, doc_id, version, text,"
            " session_id, turn_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (*key, doc.version, doc.embed.text, doc.embed.session_id, doc.embed.turn_id),
        )

    # -- the background embedder's queue -------------------------------------------------------

    def queued(self, limit: int) -> list[Queued]:
        """The documents waiting longest for a vector, oldest first."""
        rows = (
            self._db.read()
            .execute(
                "SELECT qseq, tenant, agent_id, kind, doc_id, text, session_id, turn_id"
                " FROM embed_queue ORDER BY qseq LIMIT ?",
                (limit,),
            )
            .fetchall()
        )
        return [Queued(*row) for row in rows]

    def stored_vectors(
        self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]
    ) -> dict[str, tuple[list[float], str]]:
        found: dict[str, tuple[list[float], str]] = {}
        conn = self._db.read()
        for start in range(0, len(ids), 500):  # SQLite binds at most 32,766 variables
            chunk = list(ids[start : start + 500])
            rows = conn.execute(
                "SELECT doc_id, model_id, vector FROM search_docs WHERE tenant = ?"
                f" AND agent_id = ? AND kind = ? AND doc_id IN ({', '.join('?' * len(chunk))})"
                " AND vector IS NOT NULL AND model_id IS NOT NULL",
                (tenant, agent_id, kind, *chunk),
            ).fetchall()
            for row in rows:
                vector = np.frombuffer(row["vector"], dtype=np.float32)
                found[row["doc_id"]] = ([round(float(x), 7) for x in vector], row["model_id"])
        return found

    def pending_vectors(self, tenant: str, agent_id: str, turn_id: str | None = None) -> int | None:
        return self.queued_count(tenant, agent_id, turn_id)

    def queued_count(
        self, tenant: str | None = None, agent_id: str | None = None, turn_id: str | None = None
    ) -> int:
        """How many documents wait for a vector: the whole file's, an agent's, or a turn's."""
        sql, args = "SELECT count(*) FROM embed_queue", []
        if tenant is not None and agent_id is not None:
            sql += " WHERE tenant = ? AND agent_id = ?"
            args = [tenant, agent_id]
            if turn_id is not None:
                sql += " AND turn_id = ?"
                args.append(turn_id)
        return int(self._db.read().execute(sql, args).fetchone()[0])

    def unqueue(self, items: Sequence[Queued]) -> None:
        """Take documents off the queue without a vector (the model failed on them)."""
        if items:
            with self._db.write() as conn:
                conn.executemany(
                    "DELETE FROM embed_queue WHERE qseq = ?", [(i.qseq,) for i in items]
                )

    def add_vectors(self, done: Sequence[Queued], vectors: Any, model_id: str) -> list[Queued]:
        """Give each queued document its vector, in one transaction; those whose queue entry
        is gone meanwhile (a newer version queued in its place, the document or its agent
        deleted) are skipped. The ones given a vector are returned."""
        added: list[Queued] = []
        with self._db.write() as conn:
            self._words_current(conn)
            for item, vector in zip(done, vectors, strict=True):
                if not conn.execute(
                    "DELETE FROM embed_queue WHERE qseq = ?", (item.qseq,)
                ).rowcount:
                    continue
                row = conn.execute(
                    "SELECT * FROM search_docs WHERE tenant = ? AND agent_id = ? AND kind = ?"
                    " AND doc_id = ?",
                    (item.tenant, item.agent_id, item.kind, item.doc_id),
                ).fetchone()
                if row is None:
                    continue
                table = ensure_words_table(conn, item.tenant, item.kind)
                words = conn.execute(
                    f"SELECT text, context FROM {table} WHERE rowid = ?", (row["seq"],)
                ).fetchone()
                conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (row["seq"],))
                conn.execute("DELETE FROM search_docs WHERE seq = ?", (row["seq"],))
                blob = np.asarray(vector, dtype=np.float32).tobytes()
                self._insert(conn, table, row, model_id, blob, words["text"], words["context"])
                added.append(item)
        return added

    def delete(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        with self._db.write() as conn:
            self.delete_in(conn, tenant, agent_id, kind, ids)
        self.forget(tenant, agent_id)

    def delete_in(
        self,
        conn: sqlite3.Connection,
        tenant: str,
        agent_id: str,
        kind: DocKind,
        ids: Sequence[str],
    ) -> None:
        """`delete` inside the caller's transaction (the caller calls `forget` after it)."""
        self._words_current(conn)
        for doc_id in ids:
            found = conn.execute(
                "SELECT seq FROM search_docs WHERE tenant = ? AND agent_id = ? AND kind = ?"
                " AND doc_id = ?",
                (tenant, agent_id, kind, doc_id),
            ).fetchone()
            if found is not None:
                table = ensure_words_table(conn, tenant, kind)
                conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (found["seq"],))
                conn.execute("DELETE FROM search_docs WHERE seq = ?", (found["seq"],))
            conn.execute(
                "DELETE FROM embed_queue WHERE tenant = ? AND agent_id = ? AND kind = ?"
                " AND doc_id = ?",
                (tenant, agent_id, kind, doc_id),
            )
        SqliteEntityLinks.unlink_in(conn, tenant, agent_id, kind, ids)

    def delete_agent(self, tenant: str, agent_id: str) -> None:
        with self._db.write() as conn:
            self.delete_agent_in(conn, tenant, agent_id)
        self.forget(tenant, agent_id)

    def delete_agent_in(self, conn: sqlite3.Connection, tenant: str, agent_id: str) -> None:
        self._words_current(conn)
        self.clear_agent_rows(conn, tenant, agent_id)
        self.forget(tenant, agent_id)

    @staticmethod
    def clear_agent_rows(conn: sqlite3.Connection, tenant: str, agent_id: str) -> None:
        kinds = conn.execute(
            "SELECT DISTINCT kind FROM search_docs WHERE tenant = ? AND agent_id = ?",
            (tenant, agent_id),
        ).fetchall()
        for (kind,) in kinds:
            conn.execute(
                f"DELETE FROM {ensure_words_table(conn, tenant, kind)} WHERE rowid IN"
                " (SELECT seq FROM search_docs WHERE tenant = ? AND agent_id = ? AND kind = ?)",
                (tenant, agent_id, kind),
            )
        conn.execute(
            "DELETE FROM search_docs WHERE tenant = ? AND agent_id = ?", (tenant, agent_id)
        )
        conn.execute(
            "DELETE FROM embed_queue WHERE tenant = ? AND agent_id = ?", (tenant, agent_id)
        )
        SqliteEntityLinks.unlink_agent_in(conn, tenant, agent_id)

    def forget(self, tenant: str, agent_id: str) -> None:
        """Drop the agent's vectors held in memory; the next query reads them anew."""
        with self._lock:
            for key in [k for k in self._matrices if k[:2] == (tenant, agent_id)]:
                del self._matrices[key]

    # -- queries ----------------------------------------------------------------------------

    def lexical(
        self, tenant: str, agent_id: str, query: str, where: IndexFilter, limit: int
    ) -> list[Hit]:
        """Best BM25 matches that pass `where` (lexical.py)."""
        expression = match_expression(query)
        if expression is None or limit <= 0:
            return []
        conn = self._db.read()
        self._words_current(conn)  # a search in a batch finds what the batch wrote
        return lexical_hits(conn, tenant, agent_id, expression, where, limit)

    def vector(
        self, tenant: str, agent_id: str, vector: Sequence[float], where: IndexFilter, limit: int
    ) -> list[Hit]:
        if self._model_id is None or self._dimensions is None:
            return []
        matrix = self._matrix(tenant, agent_id, where.kind)
        return nearest(matrix, vector, where, limit)

    def _matrix(self, tenant: str, agent_id: str, kind: str) -> Matrix:
        key = (tenant, agent_id, kind)
        with self._lock:
            matrix = self._matrices.get(key)
            if matrix is None:
                assert self._dimensions is not None
                matrix = self._matrices[key] = Matrix(self._dimensions)
        with matrix.lock:
            rows = (
                self._db.read()
                .execute(
                    "SELECT * FROM search_docs WHERE tenant = ? AND agent_id = ? AND kind = ?"
                    " AND seq > ? ORDER BY seq",
                    (tenant, agent_id, kind, matrix.last_seq),
                )
                .fetchall()
            )
            for row in rows:
                if row["vector"] is not None and row["model_id"] == self._model_id:
                    matrix.append(row)
                else:
                    matrix.drop(row["doc_id"])  # its vector is queued, or another model's
                matrix.last_seq = row["seq"]
        return matrix
