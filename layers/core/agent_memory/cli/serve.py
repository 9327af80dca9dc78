"""`agent-memory serve`: the embedded server."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from pydantic import ValidationError

from .errors import say, settings_problems
from .flags import DATA_DIR_HELP


def _serve(args: argparse.Namespace) -> int:
    from ..local.server import serve
    from ..settings import Settings

    overrides: dict[str, Any] = {
        k: v
        for k, v in {
            "host": args.host,
            "port": args.port,
            "data_dir": args.data_dir,
            "token": args.token,
        }.items()
        if v is not None
    }
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        for problem in settings_problems(exc):
            say(problem)
        return 2
    from ..local.datadir_lock import DataDirInUse
    from ..local.server import PortUnavailable

    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(message)s")
    try:
        serve(settings)
    except (PortUnavailable, DataDirInUse) as exc:
        print(f"agent-memory: {exc}", file=sys.stderr)
        return 1
    return 0


def add_serve_command(commands: Any) -> None:
    """`serve`: the embedded server."""
    serve = commands.add_parser("serve", help="run the embedded server (SQLite, 127.0.0.1:8080)")
    serve.add_argument("--host", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8080; 0 picks a free one)")
    serve.add_argument("--data-dir", help=DATA_DIR_HELP)
    serve.add_argument("--token", help="use this API token instead of <data-dir>/token")
    serve.set_defaults(run=_serve)
