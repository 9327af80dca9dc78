"""`agent-memory reindex`: re-embed and rebuild the embedded search index."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .cloud_reindex import add_cloud_flags, cloud_reindex
from .errors import say, settings_problems
from .flags import DATA_DIR_HELP


def _reindex(args: argparse.Namespace) -> int:
    from ..bootstrap import build_services
    from ..local.reindex import reindex
    from ..settings import Settings

    overrides = {"data_dir": args.data_dir} if args.data_dir else {}
    from pydantic import ValidationError

    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        say("; ".join(settings_problems(exc)))
        return 1
    if settings.store == "dynamodb":
        return cloud_reindex(args, settings)
    if args.start or args.tenant or args.agent or args.dry_run:
        print(
            "agent-memory: --from, --tenant, --agent and --dry-run are the cloud shape's "
            "(AGENT_MEMORY_STORE=dynamodb); the embedded reindex takes --data-dir and --all",
            file=sys.stderr,
        )
        return 1
    if settings.store == "sqlite" and not settings.database_path.exists():
        # Opening it would make a new, empty database: a mistyped directory is said so instead.
        print(
            f"agent-memory: no database at {settings.database_path}: "
            "name the --data-dir that `agent-memory serve` uses",
            file=sys.stderr,
        )
        return 1
    services = build_services(settings)
    progress = _ProgressLine() if sys.stderr.isatty() else None
    try:
        done = reindex(services, everything=args.all, progress=progress)
    finally:
        services.close()
        if progress is not None:
            progress.end()
    print(json.dumps(done.__dict__))
    return 0


class _ProgressLine:
    """One line on a terminal, rewritten in place as the reindex goes."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, done: Any, total: int) -> None:
        self.shown = True
        print(
            f"\rreindexing: {done.agents}/{total} agents, {done.records} records, "
            f"{done.files} files, {done.events} events, {done.vectors} embedded",
            end="",
            file=sys.stderr,
            flush=True,
        )

    def end(self) -> None:
        if self.shown:  # ends the line; nothing stale: nothing was shown, nothing to end
            print(file=sys.stderr)


def add_reindex_command(commands: Any) -> None:
    """`reindex`: rebuild the search index from the store (embedded, or the cloud's table)."""
    reindex = commands.add_parser(
        "reindex",
        help="re-embed and rebuild the search index: the embedded one (after a model change), "
        "or with AGENT_MEMORY_STORE=dynamodb the cloud's, from its table (after a restore)",
    )
    reindex.add_argument("--data-dir", help=DATA_DIR_HELP + "; it must hold a database")
    reindex.add_argument("--all", action="store_true", help="even when nothing is stale")
    add_cloud_flags(reindex)
    reindex.set_defaults(run=_reindex)
