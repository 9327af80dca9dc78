"""Words: the embedded index's BM25 search over its FTS5 tables (words.py), the matches
filtered by their search_docs rows."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from ...domain.search.index import CONTEXT_WEIGHT, Hit, IndexFilter
from ...domain.search.lexical import tokenize
from .database import owner_key
from .filters import DOC_COLUMNS, filter_sql
from .words import missing_table, words_table

_MAX_BATCH = 2048  # search_docs rows checked against the filters at a time (lexical)


def match_expression(query: str) -> str | None:
    """User text never reaches MATCH raw (`eu-west-1` is syntax): words quoted, OR-ed."""
    terms = list(dict.fromkeys(tokenize(query, query=True)))
    return " OR ".join(f'"{t}"' for t in terms) if terms else None


def _filter_sql(where: IndexFilter) -> tuple[str, list[Any]]:
    """`where` beyond tenant, agent and kind, as SQL over search_docs `d`."""
    rules, args = filter_sql(where, DOC_COLUMNS)
    return " ".join(f"AND {rule}" for rule in rules), args


def lexical_hits(
    conn: sqlite3.Connection,
    tenant: str,
    agent_id: str,
    expression: str,
    where: IndexFilter,
    limit: int,
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
    filters, filter_args = _filter_sql(where)
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
