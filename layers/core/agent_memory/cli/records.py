"""`agent-memory records ...` (and `agents records ...`): an agent's memory records on a running
server, through the SDK's typed calls: list them (`--status`, `--as-of`), read one, its
versions, set or clear when it expires, and the writes its reviews left waiting for approval
(harness.memory.extraction.approval "review") with an app's decision on each."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import Any

from ..client import Client
from ..client.models import Record
from ..domain.kernel.durations import parse_instant
from .flags import action, client_flags

AGENT_HELP = "the agent's id, such as teams/web/releases"
AS_OF_HELP = "as things stood at this ISO 8601 time with its offset: 2026-01-31T12:00:00Z"


def run_records(args: argparse.Namespace) -> int:
    with Client(args.url, args.token) as client:
        records = client.agents.records
        if args.verb == "ls":
            at = _instant(args.as_of) if args.as_of else None
            listed = records.iter(args.agent, status=args.status, limit=args.limit, as_of=at)
            for record in listed:
                expires = _when(record.expires_at) if record.expires_at else ""
                row = f"{record.id}\t{record.status.value}\t{record.kind}\t{record.summary}"
                print(f"{row}\t{expires}".rstrip())
        elif args.verb == "get":
            print(json.dumps(_shown(records.get(args.agent, args.record)), indent=2))
        elif args.verb == "versions":
            for version in records.versions(args.agent, args.record):
                print(
                    f"v{version.record.version}\t{_when(version.at)}\t{version.operation.value}"
                    f"\t{version.record.status.value}\t{version.changed_by.actor}"
                )
        elif args.verb == "expire":
            when = None if args.never else _instant(args.at)
            changed = records.set_expiry(args.agent, args.record, when)
            print(json.dumps(_shown(changed), indent=2))
        elif args.verb == "pending":
            for record in records.iter(args.agent, status="PENDING"):
                proposal = record.proposal
                what = proposal.action if proposal else "add"
                target = proposal.target if proposal and proposal.target else "-"
                turn = record.provenance.turn_id or "-"
                print(f"{record.id}\t{what}\t{target}\t{turn}\t{record.summary}")
        else:
            decide = records.approve if args.verb == "approve" else records.reject
            print(json.dumps(_shown(decide(args.agent, args.record)), indent=2))
    return 0


def instant(text: str | None) -> datetime | None:
    """`--as-of` as an instant (None when not given); a bad one ends the command."""
    return _instant(text) if text else None


def _instant(text: str) -> datetime:
    try:
        return parse_instant(text)
    except ValueError as exc:
        raise SystemExit(f"agent-memory: {exc}") from exc


def _shown(record: Record) -> dict[str, Any]:
    return record.model_dump(mode="json", by_alias=True)


def _when(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def add_records_commands(commands: Any, agent_actions: Any) -> None:
    """`records ...`, and the same under `agents records ...`."""
    _record_commands(commands.add_parser("records", help="an agent's memory records"))
    _record_commands(agent_actions.add_parser("records", help="the same as `records`"))


def _record_commands(parser: argparse.ArgumentParser) -> None:
    """`ls|get|versions|expire|pending|approve|reject`."""
    client_flags(parser)
    verbs = parser.add_subparsers(
        dest="verb", required=True, metavar="ACTION", help="what to do with the records"
    )
    ls = action(verbs, "ls", "list records newest first: id, status, kind, summary, expiry")
    ls.add_argument("agent", help=AGENT_HELP)
    ls.add_argument("--status", help="comma-separated statuses, or all (default ACTIVE)")
    ls.add_argument("--limit", type=int, help="records a page")
    ls.add_argument("--as-of", help=AS_OF_HELP)
    for name, text in (("get", "show a record"), ("versions", "every version, newest first")):
        one = action(verbs, name, text)
        one.add_argument("agent", help=AGENT_HELP)
        one.add_argument("record", help="the record's id")
    expire = action(verbs, "expire", "set when a record expires, or --never to clear it")
    expire.add_argument("agent", help=AGENT_HELP)
    expire.add_argument("record", help="the record's id")
    when = expire.add_mutually_exclusive_group(required=True)
    when.add_argument("--at", help="an ISO 8601 time with its offset: 2026-01-31T12:00:00Z")
    when.add_argument("--never", action="store_true", help="clear the expiry")
    pending = action(
        verbs,
        "pending",
        "list the review's writes waiting for approval: id, action, target, turn, summary",
    )
    pending.add_argument("agent", help=AGENT_HELP)
    for verb, text in (
        ("approve", "apply what a pending record proposes, against the memory as it is now"),
        ("reject", "refuse what a pending record proposes (kept REJECTED)"),
    ):
        decide = action(verbs, verb, text)
        decide.add_argument("agent", help=AGENT_HELP)
        decide.add_argument("record", help="the pending record's id")
    parser.set_defaults(run=run_records)
