"""The audit trail on DynamoDB (a mixin of DynamoStore), mirroring SqliteAudit. Entries carry
the table's TTL attribute, so DynamoDB deletes them once the retention has passed; until the
sweeper gets there (it may take days) a listing leaves them out itself."""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import islice

from pynamodb.connection import Connection
from pynamodb.expressions.condition import Condition

from ...domain.audit.models import AuditEntry
from . import keys
from .items import Items
from .transactions import ConditionsFailed, Transaction, storage_errors

# How long the marker of a change audited once is kept: past the stream's 24 hours, after
# which nothing retries the change any more.
ONCE_KEPT = timedelta(days=2)


class DynamoAudit:
    _items: Items
    connection: Connection

    def append_audit(self, entry: AuditEntry) -> None:
        item = self._items.audit.of(entry)
        with storage_errors():
            item.save(self._items.audit.pk.does_not_exist())

    def append_audit_once(self, entry: AuditEntry, once: str) -> bool:
        """Keep `entry` unless a change named `once` (within its tenant) was kept already: a
        marker keyed by it is put in the same transaction, on condition that it is new. False
        when it was not (a retried stream record), and nothing is written then."""
        marker = self._items.item(
            keys.audit_pk(entry.tenant),
            keys.audit_once_sk(once),
            ttl=(entry.at + ONCE_KEPT).replace(microsecond=0),
        )
        item = self._items.audit.of(entry)
        try:
            with Transaction(self.connection) as tx:
                tx.put("once", marker, self._items.item.pk.does_not_exist())
                tx.put("entry", item, self._items.audit.pk.does_not_exist())
        except ConditionsFailed as exc:
            if "once" in exc.failed:
                return False
            raise
        return True

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
