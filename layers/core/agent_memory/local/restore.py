"""Bring a backup (local/backup.py) back into a data directory.

Everything is checked before the directory is touched: the file is a tar with our manifest
first, of a format and schema this version reads, naming only files a data directory holds;
each file is unpacked beside the directory and matched against its size and SHA-256, and
the database passes `PRAGMA quick_check`. Only then are the files renamed into place. The
directory is held exclusively throughout (datadir_lock): never under a running server.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tarfile
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from ..adapters.sqlite.migrations import MIGRATIONS
from .backup import (
    CHUNK,
    DATABASE,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    SIDE_FILES,
    BackupDone,
    BackupRefused,
)
from .datadir_lock import LOCK_FILE, hold_exclusive

KNOWN = (DATABASE, *SIDE_FILES)
# The running database's companions: stale beside a database put in its place.
COMPANIONS = (f"{DATABASE}-wal", f"{DATABASE}-shm", f"{DATABASE}-journal")


def restore(archive: Path, data_dir: Path, *, force: bool = False) -> BackupDone:
    """Restore `archive` into `data_dir`. Refused, with nothing changed, for a file that is not
    a whole backup, a directory a server uses, or one holding data without `force`."""
    start = time.monotonic()
    if not archive.is_file():
        raise BackupRefused(f"no backup file at {archive}")
    try:
        tar = tarfile.open(archive, "r:*")  # noqa: SIM115 - closed by the `with tar` below
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise BackupRefused(_not_a_backup(archive, "it is not a tar archive")) from exc
    made = not data_dir.exists()
    try:
        with tar:
            return _restore(tar, archive, data_dir, force, start)
    except BaseException:
        if made:  # a refused restore leaves no directory it made behind
            shutil.rmtree(data_dir, ignore_errors=True)
        raise


def _restore(
    tar: tarfile.TarFile, archive: Path, data_dir: Path, force: bool, start: float
) -> BackupDone:
    manifest = _manifest(tar, archive)
    with hold_exclusive(data_dir):
        there = sorted(p.name for p in data_dir.iterdir() if p.name != LOCK_FILE)
        if there and not force:
            raise BackupRefused(
                f"{data_dir} is not empty (it holds {', '.join(there)}): restore into an "
                "empty directory, or pass --force to replace its data with the backup's"
            )
        staging = Path(tempfile.mkdtemp(prefix=".restore-", dir=data_dir))
        try:
            for name, meta in manifest["files"].items():
                _unpack(tar, archive, name, meta, staging / name)
            _check_database(staging / DATABASE, archive)
            _put_in_place(staging, data_dir, set(manifest["files"]))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return BackupDone(
        out=str(data_dir),
        bytes=sum(int(meta["bytes"]) for meta in manifest["files"].values()),
        seconds=round(time.monotonic() - start, 3),
        schema=int(manifest["schema"]),
        files=sorted(manifest["files"]),
    )


def _not_a_backup(archive: Path, why: str) -> str:
    return f"{archive} is not an agent-memory backup ({why}); make one with `agent-memory backup`"


def _manifest(tar: tarfile.TarFile, archive: Path) -> dict[str, Any]:
    try:
        first = tar.next()
        raw = tar.extractfile(first).read() if first and first.name == MANIFEST else None  # type: ignore[union-attr]
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise BackupRefused(_not_a_backup(archive, "it cannot be read whole")) from exc
    if raw is None:
        raise BackupRefused(_not_a_backup(archive, f"it has no {MANIFEST} first"))
    try:
        manifest = json.loads(raw)
    except ValueError as exc:
        raise BackupRefused(_not_a_backup(archive, f"its {MANIFEST} is not JSON")) from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupRefused(_not_a_backup(archive, f"its manifest does not name {FORMAT}"))
    version = manifest.get("formatVersion")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise BackupRefused(
            f"{archive} is a backup of format {version!r}, newer than this agent-memory reads "
            f"({FORMAT_VERSION}): restore it with the version that made it, or a newer one"
        )
    files = manifest.get("files")
    if not isinstance(files, dict) or DATABASE not in files or not set(files) <= set(KNOWN):
        raise BackupRefused(_not_a_backup(archive, "its manifest does not list its files"))
    for meta in files.values():
        if not (isinstance(meta, dict) and isinstance(meta.get("bytes"), int)):
            raise BackupRefused(_not_a_backup(archive, "its manifest does not list its files"))
        if not isinstance(meta.get("sha256"), str):
            raise BackupRefused(_not_a_backup(archive, "its manifest does not list its files"))
    schema = manifest.get("schema")
    if not isinstance(schema, int) or schema > len(MIGRATIONS):
        raise BackupRefused(
            f"{archive} holds a database of schema {schema!r}, newer than this agent-memory "
            f"knows ({len(MIGRATIONS)}): upgrade agent-memory, then restore"
        )
    return manifest


def _unpack(tar: tarfile.TarFile, archive: Path, name: str, meta: dict[str, Any], to: Path) -> None:
    """Copy member `name` to `to`, matching the manifest's size and SHA-256 as it goes."""
    try:
        member = tar.getmember(name)
        body: IO[bytes] | None = tar.extractfile(member) if member.isfile() else None
        if body is None:
            raise KeyError(name)
        digest, size = hashlib.sha256(), 0
        with body, to.open("wb") as out:
            while chunk := body.read(CHUNK):
                digest.update(chunk)
                size += len(chunk)
                out.write(chunk)
    except KeyError as exc:
        raise BackupRefused(_not_a_backup(archive, f"{name} is missing")) from exc
    except (tarfile.TarError, EOFError) as exc:
        raise BackupRefused(
            f"{archive} is damaged or cut short ({name} cannot be read whole): nothing was restored"
        ) from exc
    if size != meta["bytes"] or digest.hexdigest() != meta["sha256"]:
        raise BackupRefused(
            f"{archive} is damaged: {name} does not match its checksum; nothing was restored"
        )


def _check_database(path: Path, archive: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        problems = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as exc:
        problems = [str(exc)]
    finally:
        conn.close()
    if problems != ["ok"]:
        raise BackupRefused(
            f"{archive} holds a damaged database ({'; '.join(problems)}): nothing was restored"
        )


def _put_in_place(staging: Path, data_dir: Path, names: set[str]) -> None:
    """Rename each checked file into place. The old database's log and shared memory go
    first: left beside the new file they would be taken for its own."""
    for name in COMPANIONS:
        (data_dir / name).unlink(missing_ok=True)
    for name in KNOWN:
        if name in names:
            (staging / name).chmod(0o600)
            (staging / name).replace(data_dir / name)
        else:
            (data_dir / name).unlink(missing_ok=True)  # the directory is as the backup's was
