"""A backup of an embedded data directory: one tar file, taken while the server serves.

The database is copied with SQLite's online backup in one step: one read transaction, so the
copy is the database as one commit left it, while the server's writers go on (WAL readers do
not block writers). The copy is checked (`PRAGMA quick_check`) before it is kept: a damaged
database makes no backup that looks whole. Beside it go the token hashes (`tokens.json`) and
the first token (`token`), and first in the archive a manifest naming the format, its
version, the schema and each file's size and SHA-256, which a restore checks before it
changes anything (local/restore.py).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import __version__
from ..adapters.sqlite.faults import check_database_file
from .datadir_lock import hold_shared

FORMAT = "agent-memory-backup"
FORMAT_VERSION = 1
MANIFEST = "agent-memory-backup.json"
DATABASE = "agent-memory.sqlite3"
# What else a data directory holds that the service needs: the token hashes and the first
# token. (serve.lock, the -wal and -shm files are the running server's, not data.)
SIDE_FILES = ("tokens.json", "token")
CHUNK = 1 << 20


class BackupRefused(Exception):
    """A backup or a restore that cannot be made; the message says why and what to do."""


@dataclass
class BackupDone:
    out: str
    bytes: int
    seconds: float
    schema: int
    files: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return asdict(self)


def compression(path: Path) -> str:
    return "gz" if path.name.endswith((".gz", ".tgz")) else ""


def backup(data_dir: Path, out: Path) -> BackupDone:
    """Write a backup of `data_dir` to `out` (gzip when it ends .gz or .tgz). `out` appears
    only once whole: it is written beside, then renamed."""
    start = time.monotonic()
    database = data_dir / DATABASE
    if not database.exists():
        raise BackupRefused(
            f"no database at {database}: name the --data-dir that `agent-memory serve` uses"
        )
    check_database_file(database)
    out = out.resolve()
    if out.is_dir():
        raise BackupRefused(f"{out} is a directory: --out names the backup file to write")
    out.parent.mkdir(parents=True, exist_ok=True)
    with hold_shared(data_dir):  # a restore does not write the directory while it is read
        work = Path(tempfile.mkdtemp(prefix=".agent-memory-backup-", dir=out.parent))
        try:
            copy = work / DATABASE
            schema = _copy_database(database, copy)
            files = {DATABASE: copy}
            for name in SIDE_FILES:
                if (data_dir / name).exists():
                    files[name] = work / name
                    shutil.copyfile(data_dir / name, files[name])
            partial = work / "backup.partial"
            _write_archive(partial, files, schema, compression(out))
            partial.chmod(0o600)  # it holds every memory and the token hashes
            os.replace(partial, out)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return BackupDone(
        out=str(out),
        bytes=out.stat().st_size,
        seconds=round(time.monotonic() - start, 3),
        schema=schema,
        files=sorted(files),
    )


def _copy_database(database: Path, copy: Path) -> int:
    """Copy the live database to `copy` in one read transaction; check it; its schema."""
    source = sqlite3.connect(database, timeout=30)
    target = sqlite3.connect(copy)
    try:
        # One step (pages=-1): a copy taken in steps starts over whenever another connection
        # commits between two of them, which under steady writes may be for ever.
        source.backup(target, pages=-1)
        # The copy stands alone: no write-ahead log to carry beside it.
        target.execute("PRAGMA journal_mode=DELETE")
        problems = [row[0] for row in target.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            raise BackupRefused(
                f"the database at {database} is damaged ({'; '.join(problems)}): a backup of "
                "it would be too. Restore the last good backup instead"
            )
        row = target.execute("SELECT max(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)
    finally:
        target.close()
        source.close()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _write_archive(path: Path, files: dict[str, Path], schema: int, compress: str) -> None:
    manifest = {
        "format": FORMAT,
        "formatVersion": FORMAT_VERSION,
        "agentMemoryVersion": __version__,
        "createdAt": datetime.now(UTC).isoformat(),
        "schema": schema,
        "files": {
            name: {"bytes": source.stat().st_size, "sha256": sha256_of(source)}
            for name, source in files.items()
        },
    }
    raw = json.dumps(manifest, indent=2).encode()
    with tarfile.open(path, f"w:{compress}") as tar:  # type: ignore[call-overload]
        info = _member(MANIFEST, len(raw))
        tar.addfile(info, io.BytesIO(raw))  # first: a restore reads it before anything else
        for name, source in files.items():
            with source.open("rb") as body:
                tar.addfile(_member(name, source.stat().st_size), body)


def _member(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mode = 0o600
    info.mtime = int(time.time())
    return info
