"""EmbeddedIndex: the SearchIndex port in the store's own SQLite file.

Words: an FTS5 table ranked by BM25, written in the store's own transactions. Meaning: exact
cosine over a float32 matrix per agent held in memory, filtered by agent, scope, kind and labels
before scoring. A write queues its documents' vectors (`embed_queue`); the background embedder
(vectors.py) adds them later. The matrix follows the table by sequence number (every upsert, and
every vector added, takes a new one), so any thread's query sees every committed write without
a full reload.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from ...domain.search.index import (
    CONTEXT_WEIGHT,
    DocKind,
    Hit,
    IndexDoc,
    IndexFilter,
    SearchIndex,
)
from ...domain.search.lexical import tokenize
from .database import Database, owner_key
from .filters import DOC_COLUMNS, filter_sql
from .words import (
    ensure_words_table,
    flush_words,
    hold_words,
    index_texts,
    insert_words,
    missing_table,
    words_table,
)


def match_expression(query: str) -> str | None:
    """User text never reaches MATCH raw (`eu-west-1` is syntax): words quoted, OR-ed."""
    terms = list(dict.fromkeys(tokenize(query, query=True)))
    return " OR ".join(f'"{t}"' for t in terms) if terms else None


class _Codes:
    """Small integer codes for the distinct values of a column (status, session, kind, label
    value), so filters compare arrays of integers instead of strings row by row."""

    def __init__(self) -> None:
        self._codes: dict[Any, int] = {}
        self._values: list[Any] = []

    def code(self, value: Any) -> int:
        """The value's code, made on first sight (None is -1)."""
        if value is None:
            return -1
        code = self._codes.get(value)
        if code is None:
            code = self._codes[value] = len(self._codes)
        return code

    def code_of(self, value: Any) -> int:
        """The value's code without making one: -2, which no row has, for an unseen value."""
        if value is None:
            return -1
        return self._codes.get(value, -2)

    def value(self, code: int) -> Any:
        """The value a code stands for (None for -1)."""
        if code < 0:
            return None
        if len(self._values) != len(self._codes):
            self._values = list(self._codes)  # codes are given in insertion order
        return self._values[code]

    def known(self, values: Any) -> list[int]:
        """Codes of those of `values` seen so far (an unseen value matches no row)."""
        return [code for code in map(self.code_of, values) if code != -2]


# Below 1/_GATHER_BELOW of the rows passing a filter, the kept rows are copied out and scored;
# above, every row is scored in place.
_GATHER_BELOW = 5


@dataclass
class _Matrix:
    """One agent's vectors of one kind, with what the filters need, row for row.

    The filter columns are numpy arrays grown with the vectors, so a filter is a few vectorised
    comparisons rather than a Python loop over every row.
    """

    dimensions: int
    last_seq: int = 0
    ids: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    vectors: Any = None  # np.ndarray (capacity, dimensions)
    alive: Any = None  # np.ndarray (capacity,) bool: the latest row of its document
    status: Any = None  # int32 codes of `statuses`
    agent_scope: Any = None  # bool: scope "agent" (any other scope is a session's)
    session: Any = None  # int32 codes of `sessions`, -1 for none
    preview: Any = None  # bool
    record_kind: Any = None  # int32 codes of `kinds`, -1 for none
    labels: dict[str, Any] = field(default_factory=dict)  # name -> int32 codes, -1: no label
    created: list[datetime] = field(default_factory=list)
    statuses: _Codes = field(default_factory=_Codes)
    sessions: _Codes = field(default_factory=_Codes)
    kinds: _Codes = field(default_factory=_Codes)
    label_values: dict[str, _Codes] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _grow(self, n: int) -> None:
        capacity = max(1024, 2 * n)
        grown = np.zeros((capacity, self.dimensions), dtype=np.float32)
        if self.vectors is not None:
            grown[:n] = self.vectors[:n]
        self.vectors = grown
        for name, dtype, fill in (
            ("alive", bool, False),
            ("status", np.int32, -1),
            ("agent_scope", bool, False),
            ("session", np.int32, -1),
            ("preview", bool, False),
            ("record_kind", np.int32, -1),
        ):
            setattr(self, name, self._resized(getattr(self, name), n, capacity, dtype, fill))
        for name, column in self.labels.items():
            self.labels[name] = self._resized(column, n, capacity, np.int32, -1)

    @staticmethod
    def _resized(column: Any, n: int, capacity: int, dtype: Any, fill: Any) -> Any:
        grown = np.full(capacity, fill, dtype=dtype)
        if column is not None:
            grown[:n] = column[:n]
        return grown

    def drop(self, doc_id: str) -> None:
        """The document's newest row has no vector of this model (yet): its older one no longer
        stands for it."""
        old = self.rows.pop(doc_id, None)
        if old is not None:
            self.alive[old] = False

    def append(self, row: sqlite3.Row) -> None:
        doc_id = row["doc_id"]
        self.drop(doc_id)
        n = len(self.ids)
        if self.vectors is None or n >= len(self.vectors):
            self._grow(n)
        self.vectors[n] = np.frombuffer(row["vector"], dtype=np.float32)
        self.ids.append(doc_id)
        self.rows[doc_id] = n
        self.alive[n] = True
        self.status[n] = self.statuses.code(row["status"])
        self.agent_scope[n] = row["scope"] == "agent"
        self.session[n] = self.sessions.code(row["session_id"])
        self.preview[n] = bool(row["preview"])
        self.record_kind[n] = self.kinds.code(row["record_kind"])
        for name, value in json.loads(row["labels"]).items():
            column = self.labels.get(name)
            if column is None:
                column = self.labels[name] = np.full(len(self.vectors), -1, dtype=np.int32)
                self.label_values[name] = _Codes()
            column[n] = self.label_values[name].code(value)
        self.created.append(datetime.fromisoformat(row["created_at"]))

    def mask(self, where: IndexFilter) -> Any:
        """Rows `where` lets through, as IndexFilter documents it (bool array of len(ids))."""
        n = len(self.ids)
        keep = self.alive[:n].copy()
        if where.statuses:  # none named: every status (RecordQuery.matches)
            keep &= np.isin(self.status[:n], self.statuses.known(where.statuses))
        agent = self.agent_scope[:n]
        if where.include_all_sessions:
            in_scope = ~agent
        elif where.session_id is not None:
            in_scope = ~agent & (self.session[:n] == self.sessions.code_of(where.session_id))
        else:
            in_scope = np.zeros(n, dtype=bool)
        if where.include_agent:
            in_scope |= agent
        keep &= in_scope
        if where.preview != "any":
            keep &= self.preview[:n] == (where.preview == "only")
        if where.record_kinds:
            keep &= np.isin(self.record_kind[:n], self.kinds.known(where.record_kinds))
        if where.ids:
            rows = [self.rows[i] for i in where.ids if i in self.rows]
            chosen = np.zeros(n, dtype=bool)
            chosen[rows] = True
            keep &= chosen
        for name, value in where.labels.items():
            column = self.labels.get(name)
            if column is None:
                if value is not None:
                    return np.zeros(n, dtype=bool)
                continue  # no row has the label, so every row's value is None
            keep &= column[:n] == self.label_values[name].code_of(value)
        return keep


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


_MAX_BATCH = 2048  # search_docs rows checked against the filters at a time (lexical)
# From this share of the file's documents on, lexical probes the agent index per match rather
# than reading the agent's list of documents first.


def _filter_sql(where: IndexFilter) -> tuple[str, list[Any]]:
    """`where` beyond tenant, agent and kind, as SQL over search_docs `d`."""
    rules, args = filter_sql(where, DOC_COLUMNS)
    return " ".join(f"AND {rule}" for rule in rules), args


class EmbeddedIndex(SearchIndex):
    def __init__(self, db: Database, model_id: str | None, dimensions: int | None) -> None:
        self._db = db
        self._model_id = model_id
        self._dimensions = dimensions
        self._matrices: dict[tuple[str, str, str], _Matrix] = {}
        self._lock = threading.Lock()
        db.at_batch_end(flush_words)

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
        self.forget(tenant, agent_id)

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

    def forget(self, tenant: str, agent_id: str) -> None:
        """Drop the agent's vectors held in memory; the next query reads them anew."""
        with self._lock:
            for key in [k for k in self._matrices if k[:2] == (tenant, agent_id)]:
                del self._matrices[key]

    # -- queries ----------------------------------------------------------------------------

    def lexical(
        self, tenant: str, agent_id: str, query: str, where: IndexFilter, limit: int
    ) -> list[Hit]:
        """Best BM25 matches, in two steps so most matches never touch a search_docs row.

        1. The agent's matches ranked by BM25: the words table is matched on the owner column
           (one word naming the tenant, agent and kind) AND the query's words, so FTS5 walks the
           agent's documents only; BM25 weighs the text column, and the context column (the
           words said before a history event) at CONTEXT_WEIGHT. The table is the tenant's own,
           one per kind (words.py), so its statistics (IDF, average length) are the tenant's
           documents of that kind alone.
        2. The filters (status, kind, ids, preview, scope, labels) read the rows of those
           matches best first, a batch at a time, until `limit` pass.
        The result is the one a single join would give: the best `limit` matches that pass.
        """
        expression = match_expression(query)
        if expression is None or limit <= 0:
            return []
        filters, filter_args = _filter_sql(where)
        conn = self._db.read()
        self._words_current(conn)  # a search in a batch finds what the batch wrote
        owner = owner_key(tenant, agent_id, where.kind)
        table = words_table(tenant, where.kind)
        # History: what the event's own words scored too (Hit.own), its context weighed 0; a
        # second bm25 over the rows FTS5 ranks anyway costs next to nothing.
        own = f"bm25({table}, 1.0, 0.0, 0.0)" if where.kind == "event" else "NULL"
        try:
            ranked = conn.execute(
                f"SELECT rowid, bm25({table}, 1.0, 0.0, {CONTEXT_WEIGHT}) AS rank, {own}"
                f" FROM {table} WHERE {table} MATCH ? ORDER BY rank",
                (f'owner:"{owner}" AND {{text context}}:({expression})',),
            )
        except sqlite3.OperationalError as exc:
            if missing_table(exc):
                return []  # the tenant never wrote a document
            raise
        hits: list[Hit] = []
        batch_size = limit
        try:
            # Both statements read in one snapshot: the first is still open.
            while len(hits) < limit:
                batch = ranked.fetchmany(batch_size)
                if not batch:
                    break
                passing = {
                    row[0]: row
                    for row in conn.execute(
                        "SELECT d.seq, d.doc_id, d.created_at, d.session_id FROM search_docs d"
                        f" WHERE d.seq IN ({','.join('?' * len(batch))}) {filters}",
                        [seq for seq, _, _ in batch] + filter_args,
                    )
                }
                for seq, rank, by_own in batch:
                    row = passing.get(seq)
                    if row is not None:
                        hits.append(
                            Hit(
                                row[1],
                                -float(rank),
                                datetime.fromisoformat(row[2]),
                                row[3],
                                None if by_own is None else -float(by_own),
                            )
                        )
                batch_size = min(4 * batch_size, _MAX_BATCH)
        finally:
            ranked.close()
        return hits[:limit]

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
            # einsum rather than `@`: numpy's BLAS would split the product over threads that
            # then spin waiting for more work, taking the core SQLite needs for the lexical half
            # of the same search (measured on two cores: the product no faster, the next FTS5
            # query twice as slow).
            if keep.size * _GATHER_BELOW >= n:
                # Most rows pass: score them all in place (copying the kept rows out would cost
                # more than the rows it skips), then keep the filtered scores.
                scores = np.einsum("ij,j->i", matrix.vectors[:n], query)[keep]
            else:
                scores = np.einsum("ij,j->i", np.take(matrix.vectors, keep, axis=0), query)
            top = min(limit, keep.size)
            best = np.argpartition(-scores, top - 1)[:top]
            best = best[np.argsort(-scores[best])]
            return [
                Hit(
                    matrix.ids[keep[i]],
                    float(scores[i]),
                    matrix.created[keep[i]],
                    matrix.sessions.value(int(matrix.session[keep[i]])),
                )
                for i in best
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
