"""`agent-memory reindex` with AGENT_MEMORY_STORE=dynamodb: replay the table into the cloud
search index and sweep the index of what the table no longer holds (adapters/dynamodb/reindex)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .errors import say


def cloud_reindex(args: argparse.Namespace, settings: Any) -> int:
    from pynamodb.exceptions import TableDoesNotExist

    from ..adapters.dynamodb import DynamoStore
    from ..adapters.dynamodb.reindex import decode_cursor, reindex_table
    from ..cloud_workers import build_indexer

    if args.all:
        say("--all is the embedded shape's: the cloud reindex always reads the whole table")
        return 1
    try:
        start = decode_cursor(args.start) if args.start else None
    except ValueError as exc:
        say(str(exc))
        return 1
    assert settings.table_name and settings.region  # Settings checks them for dynamodb
    store = DynamoStore(
        settings.table_name,
        settings.region,
        host=settings.dynamodb_endpoint,
        bucket=settings.history_bucket,
    )
    try:
        store.connection.describe_table(settings.table_name)
    except TableDoesNotExist:
        say(
            f"no table {settings.table_name} in {settings.region}: "
            "name the restored table in AGENT_MEMORY_TABLE_NAME"
        )
        return 1
    try:
        indexer = build_indexer(settings, embed=not args.dry_run)
    except ValueError as exc:
        say(str(exc))
        return 1

    def progress(done: Any) -> None:
        line = f"reindex: {done.scanned} items read, {done.documents} documents"
        if done.cursor:
            line += f"; to resume: agent-memory reindex --from {done.cursor}"
        print(line, file=sys.stderr, flush=True)

    done = reindex_table(
        store,
        indexer,
        tenant=args.tenant,
        agent_id=args.agent,
        start=start,
        dry_run=args.dry_run,
        progress=progress,
    )
    print(json.dumps(done.__dict__))
    return 0


def add_cloud_flags(command: Any) -> None:
    """The flags of the cloud reindex (AGENT_MEMORY_STORE=dynamodb)."""
    command.add_argument(
        "--from",
        dest="start",
        metavar="CURSOR",
        help="cloud: resume the table's read where a stopped run said (its progress lines)",
    )
    command.add_argument("--tenant", help="cloud: only this tenant's items and documents")
    command.add_argument("--agent", help="cloud: only this agent's items and documents")
    command.add_argument(
        "--dry-run", action="store_true", help="cloud: count what would be written and removed"
    )
