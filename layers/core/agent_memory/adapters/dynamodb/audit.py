"""The audit trail on DynamoDB (a mixin of DynamoStore), mirroring SqliteAudit. Entries carry
the table's TTL attribute, so DynamoDB deletes them once the retention has passed; until the
sweeper gets there (it may take days) a listing leaves them out itself."""

from __future__ import annotations

from datetime import datetime
from itertools import islice

from pynamodb.expressions.condition import Condition

from ...domain.audit.models import AuditEntry
from . import keys
from .items import Items
from .transactions import storage_errors


class DynamoAudit:
    _items: Items

    def append_audit(self, entry: AuditEntry) -> None:
        item = self._items.audit.of(entry)
        with storage_errors():
            item.save(self._items.audit.pk.does_not_exist())

    def list_audit(
        self,
        tenant: str,
        after: str | None,
        limit: int,
        agent_id: str | None,
        actor: str | None,
        now: datetime,
    ) -> list[AuditEntry]:
        model = self._items.audit
        bound: Condition = (
            model.sk > keys.audit_sk(after) if after else model.sk.startswith(keys.AUDIT_ENTRY)
        )
        wanted: Condition | None = None
        for condition in (
            None if agent_id is None else model.agent_id == agent_id,
            None if actor is None else model.actor == actor,
        ):
            if condition is not None:
                wanted = condition if wanted is None else wanted & condition
        with storage_errors():
            found = model.query(
                keys.audit_pk(tenant),
                bound,
                filter_condition=wanted,
                consistent_read=True,
                page_size=max(limit, 100) if wanted is not None else limit,
            )
            live = (item.to_entry() for item in found)
            kept = (e for e in live if e.expires_at is None or e.expires_at > now)
            return list(islice(kept, limit))
