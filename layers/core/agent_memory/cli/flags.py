"""The flags and parsers the command groups share: --url and --token, an action's parser."""

from __future__ import annotations

import argparse
from typing import Any


def client_flags(parser: argparse.ArgumentParser, *, after_action: bool = False) -> None:
    """--url and --token; on an action's own parser they may follow it (`agents ls --url U`)
    and, when absent there, leave what was given before the action."""
    default = argparse.SUPPRESS if after_action else None
    parser.add_argument(
        "--url", default=default, help="server URL (default $AGENT_MEMORY_URL or 127.0.0.1:8080)"
    )
    parser.add_argument("--token", default=default, help="API token (default $AGENT_MEMORY_TOKEN)")


def action(actions: Any, name: str, text: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = actions.add_parser(name, help=text, description=text)
    client_flags(parser, after_action=True)
    return parser


DATA_DIR_HELP = "where the database and the tokens live (default ./data)"
