"""Vectors: the embedded index's in-memory matrix of one agent's vectors of one kind, filtered
and scored by exact cosine (see search.py for how it follows the search_docs table)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from ...domain.search.index import Hit, IndexFilter


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
class Matrix:
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


def nearest(matrix: Matrix, vector: Sequence[float], where: IndexFilter, limit: int) -> list[Hit]:
    """The `limit` rows of `matrix` passing `where` closest to `vector`, best first."""
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
