"""`agent-memory`: serve the embedded shape, manage tokens, and talk to a running server."""

from __future__ import annotations

import argparse

from .. import __version__
from .agents import add_agents_command
from .backfill import add_backfill_command
from .backup import add_backup_commands
from .errors import run_reporting
from .flags import client_flags
from .ingest import add_ingest_command
from .mcp import add_mcp_command
from .reindex import add_reindex_command
from .serve import add_serve_command
from .tenant import add_tenant_command
from .tokens import add_token_command
from .transfer import add_transfer_commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agent-memory", description=__doc__)
    parser.add_argument("--version", action="version", version=f"agent-memory {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="what to run"
    )
    # Each adds its command to `commands`, in the order --help lists them.
    add_serve_command(commands)
    add_reindex_command(commands)
    add_backup_commands(commands)
    add_backfill_command(commands)
    add_token_command(commands)
    add_agents_command(commands)
    add_tenant_command(commands)
    add_ingest_command(commands)
    add_transfer_commands(commands)
    add_mcp_command(commands, client_flags)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_reporting(args.run, args)
