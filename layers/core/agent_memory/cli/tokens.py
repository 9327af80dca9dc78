"""`agent-memory token create|ls|revoke`: the embedded server's API tokens."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .flags import DATA_DIR_HELP


def _data_dir(args: argparse.Namespace) -> Path:
    from ..settings import Settings

    return Path(args.data_dir) if args.data_dir else Settings().data_dir


def _csv(text: str | None) -> frozenset[str] | None:
    return None if text is None else frozenset(p.strip() for p in text.split(",") if p.strip())


def _token_create(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from ..domain.kernel.auth import ALL_ROLES
    from ..local.tokens import LEGACY_SCOPES, TokenError, add_token, parse_expiry

    try:
        token, grant = add_token(
            _data_dir(args),
            args.tenant,
            scopes=_csv(args.scopes) or LEGACY_SCOPES,
            subject=args.subject,
            roles=_csv(args.roles) or ALL_ROLES,
            expires=parse_expiry(args.expires, datetime.now(UTC)),
        )
    except TokenError as exc:
        print(f"agent-memory: {exc}", file=sys.stderr)
        return 2
    # The token is the last word: `$(agent-memory token create ... | awk '{print $NF}')`.
    print(f"token {grant.id} for tenant {grant.tenant} (shown once, kept as a hash): {token}")
    return 0


def _token_ls(args: argparse.Namespace) -> int:
    from ..local.tokens import list_tokens

    print("id\ttenant\tsubject\tscopes\troles\texpires")
    for grant in list_tokens(_data_dir(args)):
        expires = grant.expires.isoformat() if grant.expires else "never"
        fields = [grant.id, grant.tenant, grant.who, ",".join(sorted(grant.scopes))]
        print("\t".join([*fields, ",".join(sorted(grant.roles)), expires]))
    return 0


def _token_revoke(args: argparse.Namespace) -> int:
    from ..local.tokens import TokenError, revoke_token

    try:
        revoke_token(_data_dir(args), args.id)
    except TokenError as exc:
        print(f"agent-memory: {exc}", file=sys.stderr)
        return 1
    print(f"revoked {args.id}")
    return 0


def add_token_command(commands: Any) -> None:
    """`token create|ls|revoke`: the embedded server's API tokens."""
    token = commands.add_parser("token", help="manage API tokens of the embedded server")
    token_commands = token.add_subparsers(
        dest="token_command", required=True, metavar="ACTION", help="what to do with tokens"
    )
    create = token_commands.add_parser(
        "create", help="make a token for a tenant; the token is the last word printed"
    )
    create.add_argument("--tenant", required=True, help="the tenant the token acts for")
    create.add_argument(
        "--scopes",
        help="comma-separated: agents:read, agents:write, sessions:own, admin "
        "(default agents:read,agents:write,sessions:own)",
    )
    create.add_argument(
        "--subject", help="who the token speaks for; the sessions it starts are its (default: id)"
    )
    create.add_argument(
        "--roles",
        help="comma-separated caller roles it may state: agent, helper, programmatic, "
        "agent_as_tool (default: all)",
    )
    create.add_argument("--expires", help="lifetime such as 30d, 12h or 45m (default: never)")
    create.add_argument("--data-dir", help=DATA_DIR_HELP)
    create.set_defaults(run=_token_create)
    ls_tokens = token_commands.add_parser(
        "ls", help="list tokens: id, tenant, subject, scopes, roles, expiry (never the token)"
    )
    ls_tokens.add_argument("--data-dir", help=DATA_DIR_HELP)
    ls_tokens.set_defaults(run=_token_ls)
    revoke = token_commands.add_parser("revoke", help="revoke a token by its id")
    revoke.add_argument("id", help="the token's id (see token ls)")
    revoke.add_argument("--data-dir", help=DATA_DIR_HELP)
    revoke.set_defaults(run=_token_revoke)
