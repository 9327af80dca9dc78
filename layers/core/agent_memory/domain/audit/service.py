"""The audit trail: every change the API made, paged through by the tenant's admin."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from ..kernel.auth import Principal
from ..kernel.errors import InvalidRequest
from ..kernel.ids import id_floor, new_id, validate_agent_id
from ..kernel.models import Page, utcnow
from ..kernel.paging import check_limit, decode_cursor, page, str_field
from .models import AUDIT_PREFIX, AuditEntry
from .ports import AuditStore

logger = logging.getLogger(__name__)


class AuditService:
    """Records every change the API made and pages through them for a tenant's admin."""

    def __init__(self, store: AuditStore, retention_days: int) -> None:
        self._store = store
        self._retention = timedelta(days=retention_days) if retention_days else None

    def record(
        self,
        who: Principal,
        method: str,
        route: str,
        agent_id: str | None,
        target: str,
        status: int,
    ) -> AuditEntry:
        return self.record_change(
            who.tenant, who.audit_name, method, route, agent_id, target, status
        )

    def record_change(
        self,
        tenant: str,
        actor: str,
        method: str,
        route: str,
        agent_id: str | None,
        target: str,
        status: int = 200,
    ) -> AuditEntry:
        """An entry for a change the service made itself (the expiry sweeper's), named by
        its own actor, beside the API's."""
        return self.keep(self.entry(tenant, actor, method, route, agent_id, target, status))

    def keep(self, entry: AuditEntry) -> AuditEntry:
        """Keep an entry made by `entry`."""
        self._store.append_audit(entry)
        logger.info("audited", extra={"audit_id": entry.id, "actor": entry.actor})
        return entry

    def entry(
        self,
        tenant: str,
        actor: str,
        method: str,
        route: str,
        agent_id: str | None,
        target: str,
        status: int = 200,
    ) -> AuditEntry:
        """The entry record_change keeps, made now and not yet kept (for a store that keeps
        it its own way, such as once only)."""
        now = utcnow()
        return AuditEntry(
            tenant=tenant,
            id=new_id(AUDIT_PREFIX),
            at=now,
            actor=actor,
            method=method,
            route=route,
            agent_id=agent_id,
            target=target,
            status=status,
            # Whole seconds: what DynamoDB's TTL attribute keeps.
            expires_at=(now + self._retention).replace(microsecond=0) if self._retention else None,
        )

    def list(
        self,
        who: Principal,
        agent_id: str | None,
        actor: str | None,
        since: datetime | None,
        limit: int | None,
        cursor: str | None,
    ) -> Page[AuditEntry]:
        """Oldest first from `since` (or the start), optionally one agent's or one actor's."""
        who.can_administer()
        size = check_limit(limit)
        if agent_id is not None:
            validate_agent_id(agent_id)
        if since is not None and since.tzinfo is None:
            raise InvalidRequest(
                "since needs a time zone (2026-12-01T10:00:00Z)", code="invalid_since"
            )
        position = decode_cursor(cursor)
        after = str_field(position, "after") if position else None
        if after is None and since is not None:
            after = id_floor(AUDIT_PREFIX, since)
        found = self._store.list_audit(who.tenant, after, size + 1, agent_id, actor, utcnow())
        return page(found, size, lambda last: {"after": last.id})
