"""The Store port's contract for the audit trail: every test runs against SqliteStore and
DynamoStore (under moto)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from agent_memory.domain.audit.models import AUDIT_PREFIX, AuditEntry
from agent_memory.domain.kernel.ids import new_id
from agent_memory.domain.kernel.models import utcnow
from agent_memory.domain.store import Store

pytestmark = pytest.mark.contract


def entry(
    tenant: str, actor: str, agent_id: str | None, expires_in: float | None = None
) -> AuditEntry:
    now = utcnow()
    return AuditEntry(
        tenant=tenant,
        id=new_id(AUDIT_PREFIX),
        at=now,
        actor=actor,
        method="PUT",
        route=f"PUT /v1/agents/{agent_id}",
        agent_id=agent_id,
        target="",
        status=201,
        # Whole seconds, as DynamoDB's TTL attribute keeps it (and AuditService makes it).
        expires_at=None
        if expires_in is None
        else (now + timedelta(seconds=expires_in)).replace(microsecond=0),
    )


def test_entries_are_listed_oldest_first_by_tenant_agent_and_actor(store: Store) -> None:
    made = [
        entry("acme", "api:tok_a", "teams/web", 3600),
        entry("acme", "api:tok_b", "teams/web"),
        entry("acme", "api:tok_a", None),
        entry("globex", "api:tok_a", "teams/web"),
    ]
    for e in made:
        store.append_audit(e)
    now = utcnow()
    assert store.list_audit("acme", None, 10, None, None, now) == made[:3]
    assert store.list_audit("acme", None, 2, None, None, now) == made[:2]
    assert store.list_audit("acme", made[0].id, 10, None, None, now) == made[1:3]
    assert store.list_audit("acme", None, 10, "teams/web", None, now) == made[:2]
    assert store.list_audit("acme", None, 10, None, "api:tok_a", now) == [made[0], made[2]]
    assert store.list_audit("acme", None, 10, "teams/web", "api:tok_a", now) == [made[0]]
    assert store.list_audit("globex", None, 10, None, None, now) == [made[3]]
    assert store.list_audit("initech", None, 10, None, None, now) == []


def test_an_expired_entry_is_left_out(store: Store) -> None:
    gone, kept = entry("acme", "api:a", None, 60), entry("acme", "api:a", None)
    store.append_audit(gone)
    store.append_audit(kept)
    later = utcnow() + timedelta(seconds=120)
    assert store.list_audit("acme", None, 10, None, None, later) == [kept]
