"""The audit entry of a record DynamoDB's TTL purged, as the embedded sweeper keeps one.

The stream indexer tells of each purged record head (its REMOVE by the TTL service). A stream
batch that fails part-way is retried from its first failure, so the same purge may be told
twice: the entry is kept once, under a marker keyed by the agent and record (DynamoAudit
.append_audit_once), and a retry writes nothing."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ...domain.audit import AuditService
from ...domain.records.models import Record
from ...domain.records.sweeper import purge_entry
from .audit import DynamoAudit

logger = logging.getLogger(__name__)


def purge_audit(store: DynamoAudit, retention_days: int) -> Callable[[Record], None]:
    """What keeps a purge by DynamoDB's TTL in the audit trail, once."""
    audit = AuditService(store, retention_days)

    def purged(record: Record) -> None:
        entry = purge_entry(audit, record)
        # Agent ids may hold `/` but never `#`, record ids neither: the key is unambiguous.
        if store.append_audit_once(entry, f"PURGE#{record.agent_id}#{record.id}"):
            logger.info("audited", extra={"audit_id": entry.id, "actor": entry.actor})
        else:
            logger.info("purge audited already", extra={"record_id": record.id})

    return purged
