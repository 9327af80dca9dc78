"""An audit entry as an item of the single table (see items.py)."""

from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute

from ...domain.audit.models import AuditEntry, audit_entry
from . import keys
from .item_base import Item


class AuditItem(Item):
    """An audit entry; `ttl` (the table's TTL attribute) is its expiry, when one is set."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute(null=True)
    actor = UnicodeAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, entry: AuditEntry) -> AuditItem:
        return cls(
            keys.audit_pk(entry.tenant),
            keys.audit_sk(entry.id),
            tenant=entry.tenant,
            agent_id=entry.agent_id,
            actor=entry.actor,
            doc=entry.model_dump_json(),
            ttl=entry.expires_at,
        )

    def to_entry(self) -> AuditEntry:
        expires = self.ttl.isoformat() if self.ttl else None
        return audit_entry(self.tenant, expires, self.doc)
