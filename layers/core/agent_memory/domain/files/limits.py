"""File memory's limits: the deployment's defaults, and the ones a tenant's admin sets."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..kernel.durations import parse_duration
from ..kernel.errors import InvalidRequest
from ..records import DEFAULT_EXPIRED_RETENTION
from .models import TenantLimits

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)

# What a tenant's admin may set. memoryBytes stays well within a DynamoDB item (400 KB), which
# holds a memory's content whole.
MEMORY_BYTES_RANGE = (1, 256 * 1024)
MEMORIES_PER_AGENT_RANGE = (1, 1_000_000)


@dataclass(frozen=True)
class FileLimits:
    """The deployment's limits (the spec's defaults); a tenant's own replace the first two."""

    memory_bytes: int = 100 * 1024
    memories_per_agent: int = 10_000
    index_lines: int = 200
    index_bytes: int = 25 * 1024
    # Not a file limit, but the tenant's with them: how long an expired record is kept.
    expired_retention: str = DEFAULT_EXPIRED_RETENTION

    def with_tenant(self, own: TenantLimits | None) -> FileLimits:
        if own is None:
            return self
        return replace(
            self,
            memory_bytes=own.memory_bytes or self.memory_bytes,
            memories_per_agent=own.memories_per_agent or self.memories_per_agent,
            expired_retention=own.expired_retention or self.expired_retention,
        )


def save_tenant_limits(
    store: Store,
    tenant: str,
    memory_bytes: int | None,
    memories_per_agent: int | None,
    expired_retention: str | None = None,
) -> TenantLimits:
    """Check and keep the tenant's own limits (a None argument keeps what it has). A new
    expiredRetention applies to expiries set from then on (the purge instant is kept with each
    record when its expiry is written)."""
    _check(memory_bytes, memories_per_agent, expired_retention)
    own = store.tenant_limits(tenant) or TenantLimits()
    own = own.model_copy(
        update={
            k: v
            for k, v in (
                ("memory_bytes", memory_bytes),
                ("memories_per_agent", memories_per_agent),
                ("expired_retention", expired_retention),
            )
            if v is not None
        }
    )
    store.save_tenant_limits(tenant, own)
    logger.info(
        "tenant limits set",
        extra={
            "tenant": tenant,
            "memory_bytes": own.memory_bytes,
            "memories_per_agent": own.memories_per_agent,
            "expired_retention": own.expired_retention,
        },
    )
    return own


def _check(
    memory_bytes: int | None, memories_per_agent: int | None, expired_retention: str | None
) -> None:
    for name, value, (low, high) in (
        ("memoryBytes", memory_bytes, MEMORY_BYTES_RANGE),
        ("memoriesPerAgent", memories_per_agent, MEMORIES_PER_AGENT_RANGE),
    ):
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high
        ):
            raise InvalidRequest(
                f"{name} must be a whole number from {low} to {high}, not {value!r}",
                code="invalid_limit",
            )
    if expired_retention is not None:
        try:
            parse_duration(expired_retention)
        except ValueError as exc:
            raise InvalidRequest(f"expiredRetention: {exc}", code="invalid_limit") from exc
    if memory_bytes is None and memories_per_agent is None and expired_retention is None:
        raise InvalidRequest(
            "give memoryBytes, memoriesPerAgent, expiredRetention or several",
            code="invalid_limit",
        )
