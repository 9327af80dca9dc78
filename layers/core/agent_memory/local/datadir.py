"""The data directory holds the database and the token hashes: its owner's alone."""

from __future__ import annotations

import logging
import os
from pathlib import Path

logger = logging.getLogger(__name__)


def make_private(data_dir: Path) -> None:
    """The directory 0700 and every file and folder in it 0600 / 0700, whatever they were
    before (a directory made by hand, a database copied in). New files this process makes are
    private too (umask 077): SQLite makes its -wal and -shm files as it goes."""
    os.umask(0o077)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    fixed = 0
    for path in [data_dir, *data_dir.rglob("*")]:
        if path.is_symlink():
            continue  # its target is not ours to change
        wanted = 0o700 if path.is_dir() else 0o600
        if path.stat().st_mode & 0o777 != wanted:
            path.chmod(wanted)
            fixed += 1
    if fixed:
        logger.info("data directory made private", extra={"fixed": fixed, "path": str(data_dir)})
