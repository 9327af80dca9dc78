"""A database of one table `t (v INTEGER PRIMARY KEY)`, for tests of SQLite transactions."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_memory.adapters.sqlite.database import Database


def table_db(path: Path, busy_seconds: float = 30.0) -> Database:
    database = Database(path, busy_seconds=busy_seconds)
    with database.write() as conn:
        conn.execute("CREATE TABLE t (v INTEGER PRIMARY KEY)")
    return database


def values(path: str) -> list[int]:
    """What another connection reads in `t`: only what was committed."""
    other = sqlite3.connect(path)
    try:
        return [row[0] for row in other.execute("SELECT v FROM t ORDER BY v")]
    finally:
        other.close()
