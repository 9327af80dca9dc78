"""An entry of the audit trail: who changed what in a tenant, and when."""

from __future__ import annotations

import json
from datetime import datetime

from pydantic import Field

from ..kernel.models import Entity

AUDIT_PREFIX = "aud"


class AuditEntry(Entity):
    tenant: str = Field(exclude=True)
    id: str
    at: datetime
    # `api:<token id>` (embedded) or `api:<JWT subject>` (cloud): the same name versions carry.
    actor: str
    method: str
    route: str
    # The agent changed, and what of it (`memories/notes.md`, `sessions/s1/turns/t1/commit`);
    # none for a change to the tenant itself (limits, reset).
    agent_id: str | None = Field(default=None, serialization_alias="agentId")
    target: str
    status: int
    # DynamoDB's TTL sweeper removes the entry after this; listings leave out what has passed.
    expires_at: datetime | None = Field(default=None, exclude=True)


def audit_entry(tenant: str, expires_at: str | None, doc: str) -> AuditEntry:
    """An entry as the stores keep it: its JSON (which leaves out the tenant and the expiry,
    kept in their own columns or attributes) with those two."""
    return AuditEntry.model_validate(
        {**json.loads(doc), "tenant": tenant, "expires_at": expires_at}
    )
