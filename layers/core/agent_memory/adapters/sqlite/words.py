"""The words index: one FTS5 table per tenant.

FTS5's `bm25()` takes its statistics (how many documents hold a word, their average length) from
the whole table. With every tenant in one table, what one tenant stores moved the scores and the
order of another's search results: a tenant could learn whether others' memories hold a word
by storing it once and watching its own score fall as others' documents with it were added.
Each tenant's documents are in a table of their own, so its statistics are its own. (Within a
tenant, an agent's records, file memories and history events still share them: one owner.)

A table is named by a digest of its tenant (tenant ids are arbitrary text) and made by the
first write that needs it, inside that write's transaction; a rolled-back write takes it away
again, so every write makes sure of it (`CREATE ... IF NOT EXISTS`, ~5 µs) rather than trusting
a cache. A tenant that never wrote has no table, and its searches find nothing.
"""

from __future__ import annotations

import hashlib
import sqlite3

WORDS_PREFIX = "search_words_"


def words_table(tenant: str) -> str:
    """The tenant's words table: 96 bits of a digest, a name no two tenants share in practice."""
    return WORDS_PREFIX + hashlib.sha256(tenant.encode()).hexdigest()[:24]


def ensure_words_table(conn: sqlite3.Connection, tenant: str) -> str:
    """The tenant's words table, made if it is not there yet (in the caller's transaction).
    Columns: the document's own words, its owner (one word naming the tenant, agent and kind, so
    a query walks one agent's documents), and the words said just before a history event."""
    table = words_table(tenant)
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5(text, owner, context,"
        " tokenize = 'porter unicode61')"
    )
    return table


def missing_table(exc: sqlite3.OperationalError) -> bool:
    """The statement named a words table that does not exist (its tenant never wrote)."""
    return str(exc).startswith(f"no such table: {WORDS_PREFIX}")


def split_by_tenant(conn: sqlite3.Connection) -> None:
    """Migration 16: move the shared table's rows into their tenants' tables, then drop it."""
    tenants = [row[0] for row in conn.execute("SELECT DISTINCT tenant FROM search_docs")]
    for tenant in tenants:
        table = ensure_words_table(conn, tenant)
        conn.execute(
            f"INSERT INTO {table} (rowid, text, owner, context)"
            " SELECT f.rowid, f.text, f.owner, f.context FROM search_fts f"
            " JOIN search_docs d ON d.seq = f.rowid WHERE d.tenant = ?",
            (tenant,),
        )
    conn.execute("DROP TABLE search_fts")
