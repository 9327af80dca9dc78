"""The expiry sweeper: writes EXPIRED down for records whose expiresAt has passed, and (the
embedded shape) purges those past their tenant's retention, each change in the audit trail and
announced as agent.memory_updated. The embedded worker runs it every few seconds; the cloud's
consolidation state machine runs it a batch a step (functions/consolidation), DynamoDB's TTL
doing the purge there.

Reads never wait for it: a read judges expiry at its own instant (Record.seen_at). The sweep
only makes the stored status, the search index and the audit trail say what reads already do."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ..audit import AuditEntry, AuditService
from ..kernel.errors import PreconditionFailed
from ..kernel.events import Change, Event, EventPublisher
from ..kernel.ids import new_id
from ..kernel.models import utcnow
from ..search import SearchService
from .models import Provenance, Record, RecordOperation, RecordStatus, RecordVersion, RecordWrite
from .ports import ExpiringRecords, ExpirySweep

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)

SWEEPER = "system:expiry"
BATCH = 100


def purge_entry(audit: AuditService, record: Record) -> AuditEntry:
    """The audit entry of a record purged past its retention: the embedded sweeper's purge,
    and the cloud's (DynamoDB's TTL, told by the stream indexer), say it alike."""
    return audit.entry(
        record.tenant, SWEEPER, "PURGE", "PURGE record", record.agent_id, f"records/{record.id}"
    )


@dataclass(frozen=True)
class SweepCounts:
    expired: int
    purged: int


class ExpirySweeper:
    """One sweep at a time (the worker's thread, a scheduled step, or a test with its own
    clock). It purges only when its store purges (ExpirySweep); the cloud's TTL purges."""

    def __init__(
        self,
        store: Store,
        sweep: ExpiringRecords,
        search: SearchService,
        events: EventPublisher,
        audit: AuditService,
    ) -> None:
        self._store = store
        self._sweep = sweep
        self._search = search
        self._events = events
        self._audit = audit

    def sweep(self, now: datetime | None = None, batch: int = BATCH) -> SweepCounts:
        """Everything due at `now` (the clock when not given), `batch` records a read."""
        at = now or utcnow()
        expired = purged = 0
        while True:
            done, more = self.expire_batch(at, batch)
            expired += done
            if not more:
                break
        if isinstance(self._sweep, ExpirySweep):
            while True:
                gone = self._sweep.purge_records(at, batch)
                for record in gone:
                    self._audit.keep(purge_entry(self._audit, record))
                purged += len(gone)
                if len(gone) < batch:
                    break
        if expired or purged:
            logger.info("expiry swept", extra={"expired": expired, "purged": purged})
        return SweepCounts(expired=expired, purged=purged)

    def expire_batch(self, now: datetime, batch: int = BATCH) -> tuple[int, bool]:
        """Expire up to `batch` records due at `now`: how many were, and whether more may be
        due (a full batch read, not all of it skipped as changed meanwhile)."""
        due = self._sweep.records_expiring(now, batch)
        done = sum(self._expire(record, now) for record in due)
        return done, len(due) >= batch and done > 0

    def _expire(self, record: Record, now: datetime) -> bool:
        """Write EXPIRED down as a new version, unless the record changed since it was read."""
        changed = record.model_copy(
            update={
                "status": RecordStatus.EXPIRED,
                "pinned": False,
                "version": record.version + 1,
                "updated_at": now,
            }
        )
        write = RecordWrite(
            index=self._search.doc_without_vector(changed) if self._search.inline else None,
            record=changed,
            expected_version=record.version,
            versions=[
                RecordVersion(
                    record=changed,
                    operation=RecordOperation.EXPIRE,
                    changed_by=Provenance(actor=SWEEPER),
                    at=now,
                )
            ],
        )
        try:
            self._store.write_records(record.tenant, record.agent_id, [write])
        except PreconditionFailed:
            return False  # changed meanwhile (or its agent is going): the next sweep sees it
        self._audit.record_change(
            record.tenant,
            SWEEPER,
            "EXPIRE",
            "EXPIRE record",
            record.agent_id,
            f"records/{record.id}",
        )
        change = Change(id=record.id, operation="expire", version=changed.version)
        self._events.publish(
            [
                Event(
                    type="agent.memory_updated",
                    tenant=record.tenant,
                    agent_id=record.agent_id,
                    session_id=record.session_id,
                    effect_id=new_id("eff"),
                    changes=[change],
                    at=now,
                )
            ]
        )
        return True
