"""`agent-memory tenant reset --confirm NAME [--agents]`: reset the caller's tenant on a
running server, calling until it is done (each call works about 20 seconds).

Without `--agents` the whole tenant: every agent with all it owns, and its limits back to the
deployment's. With `--agents`, the agents alone: the limits stay as its admin set them. Either
way the audit trail and the tokens stay."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from .flags import action, client_flags


def add_reset(actions: Any, action: Callable[[Any, str, str], argparse.ArgumentParser]) -> None:
    """The `reset` action of `tenant`, made with the CLI's own `action` helper."""
    reset = action(
        actions,
        "reset",
        "delete every agent of the tenant with all it owns and take its limits back to the "
        "defaults; with --agents, only the agents (takes admin; audited)",
    )
    reset.add_argument(
        "--confirm", required=True, metavar="NAME", help="the tenant's name, to confirm"
    )
    reset.add_argument(
        "--agents",
        action="store_true",
        help="reset only the agents (all agents and their data): the limits, the audit trail "
        "and the tokens stay",
    )
    reset.set_defaults(run=run_reset)


def run_reset(args: argparse.Namespace) -> int:
    """Ask the server to reset until it is done; print what was reset."""
    from ..client import ApiError, Client

    client = Client(args.url, args.token)
    deleted = 0
    limits_reset = False
    try:
        while True:
            step = client.reset_tenant(args.confirm, agents_only=args.agents)
            deleted += step["deletedAgents"]
            limits_reset = limits_reset or bool(step.get("limitsReset"))
            if step["done"]:
                break
    except ApiError as exc:
        print(f"agent-memory: {exc}", file=sys.stderr)
        return 1
    if args.agents:
        print(f"tenant {args.confirm} agents reset: {deleted} agents deleted; limits kept")
    elif limits_reset:
        print(f"tenant {args.confirm} reset: {deleted} agents deleted; limits back to the defaults")
    else:
        print(f"tenant {args.confirm} reset: {deleted} agents deleted")
    return 0


def _tenant_limits(args: argparse.Namespace) -> int:
    from ..client import Client

    client = Client(args.url, args.token)
    try:
        if (args.memory_bytes, args.memories_per_agent, args.expired_retention) == (None,) * 3:
            limits = client.tenant_limits()
        else:
            limits = client.set_tenant_limits(
                args.memory_bytes, args.memories_per_agent, args.expired_retention
            )
    finally:
        client.close()
    for name, value in limits.items():
        print(f"{name}\t{value}")
    return 0


def add_tenant_command(commands: Any) -> None:
    """`tenant limits|reset`: the caller's tenant on a running server."""
    tenant = commands.add_parser("tenant", help="the caller's tenant on a running server")
    client_flags(tenant)
    tenant_actions = tenant.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="what to read or set"
    )
    limits = action(tenant_actions, "limits", "show the tenant's limits, or set them (takes admin)")
    limits.add_argument("--memory-bytes", type=int, help="bytes a memory may hold")
    limits.add_argument("--memories-per-agent", type=int, help="memories an agent may keep")
    limits.add_argument(
        "--expired-retention",
        help="how long an expired record is kept before it is purged (ISO 8601, e.g. P30D)",
    )
    limits.set_defaults(run=_tenant_limits)
    add_reset(tenant_actions, action)
