"""`agent-memory records ...` (and `agents records ...`): the writes an agent's reviews left
waiting for approval (harness.memory.extraction.approval "review"), and an app's decision on
each, through the SDK's typed calls."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..client import Client
from .flags import action, client_flags


def run_records(args: argparse.Namespace) -> int:
    with Client(args.url, args.token) as client:
        records = client.agents.records
        if args.verb == "pending":
            cursor: str | None = None
            while True:
                page = records.pending(args.agent, cursor=cursor)
                for record in page:
                    proposal = record.proposal
                    what = proposal.action if proposal else "add"
                    target = proposal.target if proposal and proposal.target else "-"
                    turn = record.provenance.turn_id or "-"
                    print(f"{record.id}\t{what}\t{target}\t{turn}\t{record.summary}")
                if not page.next:
                    break
                cursor = page.next
            return 0
        decided = (
            records.approve(args.agent, args.record)
            if args.verb == "approve"
            else records.reject(args.agent, args.record)
        )
    shown: Any = decided.model_dump(mode="json", by_alias=True)
    print(json.dumps(shown, indent=2))
    return 0


def _record_commands(parser: argparse.ArgumentParser) -> None:
    client_flags(parser)
    verbs = parser.add_subparsers(
        dest="verb", required=True, metavar="ACTION", help="what to do with the records"
    )
    agent_help = "the agent's id, such as teams/web/releases"
    pending = action(
        verbs,
        "pending",
        "list the review's writes waiting for approval: id, action, target, turn, summary",
    )
    pending.add_argument("agent", help=agent_help)
    for verb, text in (
        ("approve", "apply what a pending record proposes, against the memory as it is now"),
        ("reject", "refuse what a pending record proposes (kept REJECTED)"),
    ):
        decide = action(verbs, verb, text)
        decide.add_argument("agent", help=agent_help)
        decide.add_argument("record", help="the pending record's id")
    parser.set_defaults(run=run_records)


def add_records_command(commands: Any, agent_actions: Any) -> None:
    """`records ...`, and the same under `agents records ...`."""
    _record_commands(commands.add_parser("records", help="an agent's records awaiting approval"))
    _record_commands(agent_actions.add_parser("records", help="the same as `records`"))
