"""The ExpiringRecords port on DynamoDB (a mixin of DynamoStore): the heads whose expiresAt has
passed while they are stored ACTIVE, across tenants, for the cloud's scheduled expiry sweep.

SqliteStore finds them with one indexed query; a table has none short of a Scan of every item,
so record heads carry the sparse expiring index (record_items.py): one Query a shard, keys only,
then the heads read again consistently, since an index is eventually consistent and a head may
have changed (expired, superseded, its expiry moved) since the index saw it. The purge stays
DynamoDB's TTL: this store does not implement ExpirySweep.purge_records."""

from __future__ import annotations

import heapq
from datetime import datetime

from ...domain.kernel.durations import instant_key
from ...domain.records.models import Record
from .items import Items
from .record_items import expiring_shards, is_expiring
from .transactions import storage_errors


class DynamoExpiry:
    _items: Items

    def records_expiring(self, now: datetime, limit: int) -> list[Record]:
        if limit <= 0:
            return []
        model = self._items.record
        due = instant_key(now)
        # The soonest `limit` of each shard; the soonest `limit` of all are among them.
        entries: list[tuple[str, str, str]] = []
        with storage_errors():
            for shard in expiring_shards():
                found = model.expiring_index.query(
                    shard, model.expires_at <= due, limit=limit, page_size=limit
                )
                entries.extend((item.expires_at, item.pk, item.sk) for item in found)
            soonest = heapq.nsmallest(limit, entries)
            heads = (
                [
                    item.to_record()
                    for item in model.batch_get(
                        [(pk, sk) for _, pk, sk in soonest], consistent_read=True
                    )
                ]
                if soonest
                else []
            )
        still = [
            r for r in heads if is_expiring(r) and r.expires_at is not None and r.expires_at <= now
        ]
        return sorted(still, key=lambda r: (r.expires_at or now, r.id))
