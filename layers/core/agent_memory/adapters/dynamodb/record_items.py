"""A record's head and its versions, as items of the single table (see items.py)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.indexes import GlobalSecondaryIndex, KeysOnlyProjection

from ...domain.kernel.durations import instant_key
from ...domain.records.models import (
    Record,
    RecordStatus,
    RecordVersion,
    from_doc,
    to_doc,
    version_from_doc,
    version_to_doc,
)
from . import keys
from .item_base import Item

# The expiring index (template.yaml: Table's GlobalSecondaryIndexes) holds the record heads
# stored ACTIVE with an expiresAt, sorted by it: the expiry sweep's one Query a shard, where a
# table has no other way to them short of a Scan. It is sparse: a head carries `expiring`
# (its shard) only while it is ACTIVE and expiring, so expired, superseded and deleted heads
# leave it by the same write that changes them. Every expiring record of every tenant is in
# it, so its partitions are spread over EXPIRING_SHARDS shards by record, each one Query.
EXPIRING_INDEX = "expiring"
EXPIRING_SHARDS = 16
EXPIRING = "EX#"


def expiring_shard(tenant: str, agent_id: str, record_id: str) -> str:
    """The index partition a record's head is kept in while it is expiring."""
    digest = hashlib.sha256(f"{tenant}\n{agent_id}\n{record_id}".encode()).digest()
    return f"{EXPIRING}{int.from_bytes(digest[:4], 'big') % EXPIRING_SHARDS:02d}"


def expiring_shards() -> list[str]:
    return [f"{EXPIRING}{n:02d}" for n in range(EXPIRING_SHARDS)]


def is_expiring(record: Record) -> bool:
    """Whether its head belongs in the expiring index (what the sweep may still expire)."""
    return record.status is RecordStatus.ACTIVE and record.expires_at is not None


class ExpiringIndex(GlobalSecondaryIndex["RecordItem"]):
    """Heads stored ACTIVE with an expiresAt, soonest first within a shard (keys only: the
    sweep reads each head again, consistently, before it judges it)."""

    class Meta:
        index_name = EXPIRING_INDEX
        projection = KeysOnlyProjection()

    expiring = UnicodeAttribute(hash_key=True)
    expires_at = UnicodeAttribute(range_key=True)


class RecordItem(Item):
    """A record's head. The typed attributes repeat fields of `doc` for conditions and filters."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    record_id = UnicodeAttribute()
    scope = UnicodeAttribute()
    session_id = UnicodeAttribute(null=True)
    status = UnicodeAttribute()
    kind = UnicodeAttribute()
    preview = BooleanAttribute()
    pinned = BooleanAttribute()
    version = NumberAttribute()
    doc = UnicodeAttribute()
    # When it expires (durations.instant_key); `ttl` (Item) is when DynamoDB purges it.
    expires_at = UnicodeAttribute(null=True)
    # Its shard of the expiring index, only while is_expiring (the index is sparse).
    expiring = UnicodeAttribute(null=True)
    expiring_index = ExpiringIndex()

    @classmethod
    def of(
        cls, tenant: str, agent_id: str, record: Record, purge: datetime | None = None
    ) -> RecordItem:
        # Keyed by the tenant and agent it is written under, as SqliteStore keys its rows.
        return cls(
            keys.records_pk(tenant, agent_id),
            keys.record_sk(record.id),
            tenant=tenant,
            agent_id=agent_id,
            record_id=record.id,
            scope=record.scope,
            session_id=record.session_id,
            status=record.status.value,
            kind=record.kind,
            preview=record.preview,
            pinned=record.pinned,
            version=record.version,
            doc=json.dumps(to_doc(record)),
            expires_at=instant_key(record.expires_at) if record.expires_at else None,
            expiring=expiring_shard(tenant, agent_id, record.id) if is_expiring(record) else None,
            ttl=purge,
        )

    def to_record(self) -> Record:
        return from_doc(json.loads(self.doc))


class RecordVersionItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    record_id = UnicodeAttribute()
    version = NumberAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(
        cls,
        tenant: str,
        agent_id: str,
        record_id: str,
        version: RecordVersion,
        purge: datetime | None = None,
    ) -> RecordVersionItem:
        return cls(
            keys.record_versions_pk(tenant, agent_id, record_id),
            keys.record_version_sk(version.record.version),
            tenant=tenant,
            agent_id=agent_id,
            record_id=record_id,
            version=version.record.version,
            doc=json.dumps(version_to_doc(version)),
            ttl=purge,
        )

    def to_version(self) -> RecordVersion:
        return version_from_doc(json.loads(self.doc))
