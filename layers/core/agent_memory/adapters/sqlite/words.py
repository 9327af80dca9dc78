"""The words index: one FTS5 table per tenant and document kind.

FTS5's `bm25()` takes its statistics (how many documents hold a word, their average length) from
the whole table. With every tenant in one table, what one tenant stores moved the scores and the
order of another's search results: a tenant could learn whether others' memories hold a word
by storing it once and watching its own score fall as others' documents with it were added.
Each tenant's documents are in tables of their own, so its statistics are its own; and one per
kind, so a long history does not set the statistics its records are ranked by, nor a review's
records those of its history (S3 Vectors keeps them per agent and kind; a table per agent would
make one FTS5 table, five shadow tables, per agent and kind in the file's schema). Within a
tenant and kind, agents share them; the `owner` column selects an agent's documents.

In a batch (Database.batch: many messages' writes, each a savepoint of one transaction), the
words of the documents written are held in a temporary table of the connection and put into
their tables once, when the batch ends (`flush_words`, before its commit). FTS5 writes what it
holds to a new segment of its index at every savepoint, so words written straight in would
make a segment a message (and merges of them that grow with the table); held, they make one
a batch. The temporary table rolls back with the savepoint that wrote to it, as the words
table would; whatever reads or deletes words in the batch flushes it first.

Words are indexed as the domain splits them (domain/search/scripts.py), so a query's words and
a document's agree in every script: text that is not ASCII is stored folded, with each run of
Chinese, Japanese, Korean, Thai... characters as its characters and their pairs, and the
tokenizer keeps the marks written on letters (a Devanagari vowel sign, a Thai tone) inside the
word. ASCII text is stored as it is, so English is split and stemmed by FTS5 as it always was.

A table is named by a digest of its tenant and kind (tenant ids are arbitrary text) and made by
the first write that needs it, inside that write's transaction; a rolled-back write takes it away
again, so every write makes sure of it (`CREATE ... IF NOT EXISTS`, ~5 µs) rather than trusting
a cache. A tenant that never wrote a kind has no table for it, and searching it finds nothing.
"""

from __future__ import annotations

import hashlib
import sqlite3

from ...domain.search.index import IndexDoc
from ...domain.search.scripts import spaced

WORDS_PREFIX = "search_words_"
# Letters, digits and the marks on letters are word characters (unicode61 takes marks for
# separators by default, cutting `हिन्दी` into pieces); stemmed by porter where English.
TOKENIZER = "porter unicode61 categories ''L* N* Co Mc Mn''"
# Per connection (a temporary table), so each thread's batch holds its own words.
_HELD = "temp.words_held"


def words_table(tenant: str, kind: str) -> str:
    """The words table of a tenant's documents of a kind: 96 bits of a digest, a name no two
    tenants share in practice."""
    return WORDS_PREFIX + hashlib.sha256(f"{tenant}\0{kind}".encode()).hexdigest()[:24]


def ensure_words_table(conn: sqlite3.Connection, tenant: str, kind: str) -> str:
    """The words table of a tenant's documents of a kind, made if it is not there yet (in the
    caller's transaction).
    Columns: the document's own words, its owner (one word naming the tenant, agent and kind, so
    a query walks one agent's documents), and the words said just before a history event."""
    table = words_table(tenant, kind)
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5(text, owner, context,"
        f" tokenize = '{TOKENIZER}')"
    )
    return table


def index_text(text: str) -> str:
    """What the words table holds of a document's text: ASCII as it is, the rest as the
    domain's words (`spaced`)."""
    return text if text.isascii() else spaced(text)


def index_texts(doc: IndexDoc) -> tuple[str, str]:
    """What the words table holds of a document: its text and its context (`index_text`)."""
    return index_text(doc.text), index_text(doc.context)


def hold_words(conn: sqlite3.Connection) -> None:
    """Make sure of the table a batch holds its words in, before a write holds any (made by
    the first, again after a savepoint rolled it away)."""
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {_HELD} (seq INTEGER PRIMARY KEY, words TEXT NOT NULL,"
        " text TEXT NOT NULL, owner TEXT NOT NULL, context TEXT NOT NULL)"
    )


def insert_words(
    conn: sqlite3.Connection,
    table: str,
    seq: int,
    text: str,
    owner: str,
    context: str,
    *,
    hold: bool,
) -> None:
    """A document's words, in `table` at once, or (`hold`, in a batch, after `hold_words`)
    held until the batch ends."""
    if hold:
        conn.execute(
            f"INSERT INTO {_HELD} VALUES (?, ?, ?, ?, ?)", (seq, table, text, owner, context)
        )
    else:
        conn.execute(
            f"INSERT INTO {table} (rowid, text, owner, context) VALUES (?, ?, ?, ?)",
            (seq, text, owner, context),
        )


def flush_words(conn: sqlite3.Connection) -> None:
    """Put the words held in this connection's batch into their tables (one FTS5 segment a
    table), in the caller's transaction."""
    held = conn.execute(
        "SELECT 1 FROM temp.sqlite_master WHERE name = ?", (_HELD.partition(".")[2],)
    ).fetchone()
    if held is None:
        return
    for (table,) in conn.execute(f"SELECT DISTINCT words FROM {_HELD}").fetchall():
        conn.execute(
            f"INSERT INTO {table} (rowid, text, owner, context)"
            f" SELECT seq, text, owner, context FROM {_HELD} WHERE words = ? ORDER BY seq",
            (table,),
        )
    conn.execute(f"DELETE FROM {_HELD}")


def missing_table(exc: sqlite3.OperationalError) -> bool:
    """The statement named a words table that does not exist (its tenant never wrote)."""
    return str(exc).startswith(f"no such table: {WORDS_PREFIX}")


def split_by_tenant(conn: sqlite3.Connection) -> None:
    """Migration 16: move the shared table's rows into their tenants' and kinds' tables, then
    drop it."""
    owners = conn.execute("SELECT DISTINCT tenant, kind FROM search_docs").fetchall()
    for tenant, kind in owners:
        table = ensure_words_table(conn, tenant, kind)
        conn.execute(
            f"INSERT INTO {table} (rowid, text, owner, context)"
            " SELECT f.rowid, f.text, f.owner, f.context FROM search_fts f"
            " JOIN search_docs d ON d.seq = f.rowid WHERE d.tenant = ? AND d.kind = ?",
            (tenant, kind),
        )
    conn.execute("DROP TABLE search_fts")


def retokenize(conn: sqlite3.Connection) -> None:
    """Migration 17: every words table made again with TOKENIZER, its documents' text and
    context as `index_text` makes them, at the same rowids (nothing is lost: what was stored is
    what is folded)."""
    tables = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?"
        " AND sql LIKE 'CREATE VIRTUAL TABLE%'",
        (f"{WORDS_PREFIX}%",),
    ).fetchall()
    conn.create_function("index_text", 1, index_text, deterministic=True)
    for (table,) in tables:
        conn.execute(
            f"CREATE VIRTUAL TABLE {WORDS_PREFIX}retokenized USING fts5(text, owner, context,"
            f" tokenize = '{TOKENIZER}')"
        )
        conn.execute(
            f"INSERT INTO {WORDS_PREFIX}retokenized (rowid, text, owner, context)"
            f" SELECT rowid, index_text(text), owner, index_text(context) FROM {table}"
        )
        conn.execute(f"DROP TABLE {table}")
        conn.execute(f"ALTER TABLE {WORDS_PREFIX}retokenized RENAME TO {table}")
