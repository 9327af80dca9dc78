"""SQLite's failures as the service's errors: a full disk, a damaged file, a busy or failing disk.

Told apart by SQLite's result code (the primary code: an extended one such as
SQLITE_IOERR_WRITE carries it in its low byte), never by the message text. A real disk full
(ENOSPC on a write) and a database at its page cap both come back as SQLITE_FULL.
"""

from __future__ import annotations

import functools
import inspect
import sqlite3
import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...domain.kernel.errors import StorageDamaged, StorageFull, StorageUnavailable

SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_NOMEM = 7
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_PROTOCOL = 15
SQLITE_NOTADB = 26

DAMAGED = {SQLITE_CORRUPT, SQLITE_NOTADB}
UNAVAILABLE = {
    SQLITE_BUSY,
    SQLITE_LOCKED,
    SQLITE_NOMEM,
    SQLITE_IOERR,
    SQLITE_CANTOPEN,
    SQLITE_PROTOCOL,
}

HEADER = b"SQLite format 3\x00"

FULL_MESSAGE = "the disk holding the database is full; nothing was written, reads still work"
DAMAGED_MESSAGE = (
    "the database file is damaged; the operator must restore it from a backup "
    "(agent-memory restore)"
)
UNAVAILABLE_MESSAGE = "the database could not complete the request; try again"

T = TypeVar("T")


def primary_code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


def storage_error(exc: sqlite3.Error) -> StorageUnavailable | None:
    """The error to answer `exc` with; None for one that is a bug (a constraint, bad SQL)."""
    code = primary_code(exc)
    if code == SQLITE_FULL:
        return StorageFull(FULL_MESSAGE)
    if code in DAMAGED:
        return StorageDamaged(DAMAGED_MESSAGE)
    if code in UNAVAILABLE:
        return StorageUnavailable(UNAVAILABLE_MESSAGE)
    return None


def translated(cls: type[T]) -> type[T]:
    """Every public method of `cls` (its bases' too) answers SQLite's storage failures as the
    service's errors, through `self._faults(exc)`: the store's reads run in many modules, and
    one of them meeting a damaged page must answer 503 `storage_damaged`, not a 500."""
    for name in dir(cls):
        if name.startswith("_"):
            continue
        method = inspect.getattr_static(cls, name)
        if inspect.isfunction(method):
            setattr(cls, name, _translating(method))
    return cls


def _translating(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            error = self._faults(exc)
            if error is None:
                raise
            raise error from exc

    return run


def start_refusal(path: Path, why: str) -> str:
    """One line naming the file, what is wrong with it and the ways out."""
    return (
        f"cannot start on {path}: {why}. Restore it from a backup "
        f"(agent-memory restore BACKUP --data-dir {path.parent} --force), "
        "or start with --data-dir naming another directory"
    )


def check_database_file(path: Path, settle: float = 2.0) -> None:
    """Refuse, before SQLite opens it, a file that is not a whole database of ours.

    A zero-length file is refused: SQLite would take it for a new, empty database and the
    service would start empty over what was lost (a truncation, a failed copy). A new file is
    zero-length only between its creator's open and its switch to WAL, which writes the header
    at once (milliseconds), so a file still empty after `settle` seconds is not being made; the
    message says to delete it when the directory really is new (a start killed in that gap).
    A file cut short is found by the page count its header records, where that count is valid
    and no write-ahead log holds later pages."""
    if not path.exists():
        return
    size = path.stat().st_size
    deadline = time.monotonic() + settle
    while size == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
        size = path.stat().st_size
    if size == 0:
        raise StorageDamaged(
            start_refusal(
                path,
                "the database file is empty (0 bytes), which is not an empty service "
                "(if this directory never held data, delete the empty file)",
            )
        )
    with path.open("rb") as file:
        header = file.read(100)
    if len(header) < 100 or not header.startswith(HEADER):
        raise StorageDamaged(start_refusal(path, "it is not a SQLite database"))
    page_size = struct.unpack(">H", header[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    change_counter, pages = struct.unpack(">II", header[24:32])
    valid_for = struct.unpack(">I", header[92:96])[0]
    wal = path.with_name(path.name + "-wal")
    wal_holds_pages = wal.exists() and wal.stat().st_size > 0
    if pages and change_counter == valid_for and not wal_holds_pages and size < pages * page_size:
        raise StorageDamaged(
            start_refusal(
                path,
                f"the database file is cut short ({size} bytes of {pages * page_size})",
            )
        )


def not_ours(conn: sqlite3.Connection, path: Path, known_versions: int) -> str | None:
    """Why not to start on a SQLite database of another program (tables, none of them ours) or
    one a newer agent-memory has migrated past what this one knows (None: it is ours to open):
    migrating either would harm it."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if tables and "schema_migrations" not in tables:
        return start_refusal(path, "it is a SQLite database of another program, not agent-memory's")
    if "schema_migrations" in tables:
        newest = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] or 0
        if newest > known_versions:
            return (
                f"cannot start on {path}: a newer agent-memory made it (schema {newest}, this "
                f"one knows {known_versions}); upgrade agent-memory, or start with --data-dir "
                "naming another directory"
            )
    return None
