"""`agent-memory backfill`: write the markers a DynamoDB table's older items lack (the schedule
marker of agents consolidated on a schedule, the expiring index's shard of expiring records)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def _backfill(args: argparse.Namespace) -> int:
    from ..adapters.dynamodb import DynamoStore
    from ..adapters.dynamodb.backfill import backfill
    from ..settings import Settings

    settings = Settings()
    table = args.table or settings.table_name
    if not table or not settings.region:
        print(
            "agent-memory: name the table (--table or AGENT_MEMORY_TABLE_NAME) and its region "
            "(AWS_REGION)",
            file=sys.stderr,
        )
        return 2
    store = DynamoStore(table, settings.region)
    done = backfill(store, dry_run=args.dry_run)
    print(json.dumps(done.__dict__))
    return 0


def add_backfill_command(commands: Any) -> None:
    """`backfill`: one paged pass over a DynamoDB table after an upgrade."""
    command = commands.add_parser(
        "backfill",
        help="write the schedule and expiry markers a DynamoDB table's older items lack",
    )
    command.add_argument("--table", help="the table (AGENT_MEMORY_TABLE_NAME when not given)")
    command.add_argument(
        "--dry-run", action="store_true", help="count what would be written; write nothing"
    )
    command.set_defaults(run=_backfill)
