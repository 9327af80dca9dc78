"""Who is using a data directory: servers and backups share it, a restore needs it alone.

An advisory lock on `<data-dir>/serve.lock` (flock): every `serve` and `backup` holds it shared
while it runs, `restore` takes it exclusively. The kernel drops a lock when its process ends,
however it ends (kill -9 included), so a crashed server never leaves the directory locked.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows has no flock; there the lock is not kept
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = "serve.lock"


class DataDirInUse(Exception):
    """The data directory is in use in a way that forbids what was asked."""


def hold_shared(data_dir: Path) -> IO[bytes]:
    """Hold the directory as a server or a backup does, until the returned file is closed;
    refused while a restore writes into it."""
    return _hold(
        data_dir,
        exclusive=False,
        refusal=f"a restore is writing into {data_dir}; start again when it has finished",
    )


def hold_exclusive(data_dir: Path) -> IO[bytes]:
    """Hold the directory alone, until the returned file is closed; refused while any server
    serves it or a backup reads it."""
    return _hold(
        data_dir,
        exclusive=True,
        refusal=(
            f"an agent-memory server (or a backup) is using {data_dir}; stop it first, or "
            "restore into another --data-dir"
        ),
    )


def _hold(data_dir: Path, *, exclusive: bool, refusal: str) -> IO[bytes]:
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle = os.fdopen(os.open(data_dir / LOCK_FILE, os.O_WRONLY | os.O_CREAT, 0o600), "wb")
    if fcntl is None:
        return handle
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        fcntl.flock(handle.fileno(), mode | fcntl.LOCK_NB)
    except OSError as exc:
        handle.close()
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise DataDirInUse(refusal) from exc
        raise
    return handle
