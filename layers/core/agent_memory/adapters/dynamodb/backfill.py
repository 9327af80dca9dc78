"""One pass over a DynamoDB table writing what items saved before a release lack:

- the schedule marker of each agent whose manifest sets harness.memory.consolidation.every
  (consolidation_schedule.py; saved with the manifest only since it existed), and
- the expiring index's shard of each record head stored ACTIVE with an expiresAt
  (record_items.py; set with the head only since the index existed).

It reads the table with one Scan, a page at a time (an operator's one-off, never a request's
path), and each write is conditional on the item being as it was read and the missing part
still missing: run it twice, or while the service writes, and nothing is written twice or
over a newer save (that save wrote its own marker). `dry_run` counts what it would write."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pynamodb.exceptions import UpdateError

from . import keys
from .consolidation_schedule import scheduled_every
from .record_items import expiring_shard, is_expiring
from .records import live_agent
from .transactions import ConditionsFailed, Transaction, is_condition_failure, unavailable

logger = logging.getLogger(__name__)

PAGE = 100


@dataclass
class Backfilled:
    """What one pass saw and wrote (or, dry, would write)."""

    scanned: int = 0
    schedules: int = 0
    expiring: int = 0
    dry_run: bool = False
    skipped: list[str] = field(default_factory=list)


def backfill(
    store: Any,
    dry_run: bool = False,
    page: int = PAGE,
    progress: Callable[[int], None] | None = None,
) -> Backfilled:
    """Backfill `store`'s table (a DynamoStore) in one paged Scan."""
    done = Backfilled(dry_run=dry_run)
    start: dict[str, Any] | None = None
    while True:
        try:
            found = store.connection.scan(store.table_name, exclusive_start_key=start, limit=page)
        except Exception as exc:  # pynamodb's ScanError: the store is unreachable
            raise unavailable(exc) from exc
        for raw in found.get("Items", []):
            done.scanned += 1
            pk, sk = raw["pk"]["S"], raw["sk"]["S"]
            if pk.endswith("#AGENTS") and sk.startswith(keys.AGENT):
                done.schedules += _schedule(store, raw, dry_run, done)
            elif pk.endswith("#R") and sk.startswith(keys.RECORD) and "expiring" not in raw:
                done.expiring += _expiring(store, raw, dry_run, done)
        if progress is not None:
            progress(done.scanned)
        start = found.get("LastEvaluatedKey")
        if not start:
            break
    logger.info(
        "backfilled",
        extra={"scanned": done.scanned, "schedules": done.schedules, "expiring": done.expiring},
    )
    return done


def _schedule(store: Any, raw: dict[str, Any], dry_run: bool, done: Backfilled) -> int:
    head = store._items.agent.from_raw_data(raw)
    agent = head.to_agent()
    if head.deleting or scheduled_every(agent.manifest) is None:
        return 0
    marker = store._marker(agent.tenant, agent.id)
    if store._schedule.count(marker.pk, store._schedule.sk == marker.sk, consistent_read=True):
        return 0  # there already
    if dry_run:
        return 1
    model = store._items.agent
    kept = live_agent(model) & (model.manifest_version == agent.manifest_version)
    marker.tenant, marker.agent_id = agent.tenant, agent.id
    marker.every = scheduled_every(agent.manifest)
    try:
        with Transaction(store.connection) as tx:
            tx.check("agent", model, head.pk, head.sk, kept)
            tx.put("schedule", marker, store._schedule.pk.does_not_exist())
    except ConditionsFailed:
        # Saved or deleted meanwhile (that save put or removed the marker), or put already.
        done.skipped.append(f"{agent.tenant}/{agent.id}")
        return 0
    return 1


def _expiring(store: Any, raw: dict[str, Any], dry_run: bool, done: Backfilled) -> int:
    model = store._items.record
    head = model.from_raw_data(raw)
    record = head.to_record()
    if not is_expiring(record):
        return 0
    if dry_run:
        return 1
    shard = expiring_shard(head.tenant, head.agent_id, record.id)
    condition = (model.version == head.version) & model.expiring.does_not_exist()
    try:
        model.key(head.pk, head.sk).update(actions=[model.expiring.set(shard)], condition=condition)
    except UpdateError as exc:
        if not is_condition_failure(exc):
            raise unavailable(exc) from exc
        done.skipped.append(f"{head.tenant}/{head.agent_id}/{record.id}")  # changed meanwhile
        return 0
    return 1
