"""`agent-memory backup` and `agent-memory restore`: an embedded data directory to one file and
back, the backup taken while the server serves."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .errors import say
from .flags import DATA_DIR_HELP


def _data_dir(args: argparse.Namespace) -> Path:
    from ..settings import Settings

    return Path(args.data_dir) if args.data_dir else Settings().data_dir


def _backup(args: argparse.Namespace) -> int:
    from ..local.backup import BackupRefused, backup
    from ..local.datadir_lock import DataDirInUse

    try:
        done = backup(_data_dir(args), Path(args.out))
    except (BackupRefused, DataDirInUse) as exc:
        say(str(exc))
        return 1
    print(json.dumps(done.summary()))
    return 0


def _restore(args: argparse.Namespace) -> int:
    from ..local.backup import BackupRefused
    from ..local.datadir_lock import DataDirInUse
    from ..local.restore import restore

    try:
        done = restore(Path(args.file), _data_dir(args), force=args.force)
    except (BackupRefused, DataDirInUse) as exc:
        say(str(exc))
        return 1
    print(json.dumps(done.summary()))
    return 0


def add_backup_commands(commands: Any) -> None:
    """`backup` and `restore`."""
    backup = commands.add_parser(
        "backup",
        help="copy a data directory to one file, while the server serves",
        description="Copy the database (SQLite's online backup: one consistent moment) and the "
        "token files into one tar file (gzip when FILE ends .gz or .tgz).",
    )
    backup.add_argument("--data-dir", help=DATA_DIR_HELP)
    backup.add_argument("--out", required=True, metavar="FILE", help="the backup file to write")
    backup.set_defaults(run=_backup)
    restore = commands.add_parser(
        "restore",
        help="bring a backup back into a data directory (the server stopped)",
        description="Check a backup whole, then put its files in the data directory. Refused "
        "while a server uses the directory, and over data unless --force.",
    )
    restore.add_argument("file", metavar="FILE", help="a file `agent-memory backup` wrote")
    restore.add_argument("--data-dir", help=DATA_DIR_HELP)
    restore.add_argument(
        "--force", action="store_true", help="replace the data the directory holds"
    )
    restore.set_defaults(run=_restore)
