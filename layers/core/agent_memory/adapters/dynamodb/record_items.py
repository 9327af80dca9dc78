"""A record's head and its versions, as items of the single table (see items.py)."""

from __future__ import annotations

import json
from datetime import datetime

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from ...domain.kernel.durations import instant_key
from ...domain.records.models import (
    Record,
    RecordVersion,
    from_doc,
    to_doc,
    version_from_doc,
    version_to_doc,
)
from . import keys
from .item_base import Item


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
