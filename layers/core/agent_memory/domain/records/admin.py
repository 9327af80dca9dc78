"""The management API over an agent's records, for apps rather than turns: list (by recency
or ranked by a query), read one, its versions, and delete at once (no turn, no staging)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from ..kernel.errors import Conflict, NotFound
from ..kernel.events import Change, Event, EventPublisher
from ..kernel.ids import new_id
from ..kernel.models import Page, utcnow
from ..kernel.paging import check_limit, decode_cursor, int_field, page, str_field
from ..kernel.retry import optimistic
from ..search import SearchService
from .as_of import RecordsAsOf
from .models import (
    Provenance,
    Record,
    RecordOperation,
    RecordQuery,
    RecordStatus,
    RecordVersion,
    RecordWrite,
)
from .ranking import RecordRanking

if TYPE_CHECKING:
    from ..store import Store

# An app's delete racing other writes to the record: each loser reads it again.
_DELETE_ATTEMPTS = 10


class RecordAdmin:
    """`/agents/{agentId}/records...`: what an app reads and deletes, whatever the scopes."""

    def __init__(
        self, store: Store, events: EventPublisher, search: SearchService, ranking: RecordRanking
    ) -> None:
        self._store = store
        self._events = events
        self._search = search
        self._ranking = ranking
        self._as_of = RecordsAsOf(store, search)

    def list_records(
        self,
        tenant: str,
        agent_id: str,
        query: RecordQuery,
        text: str | None,
        limit: int | None,
        cursor: str | None,
        as_of: datetime | None = None,
    ) -> Page[Record]:
        """Newest first, or ranked by `text`; with `as_of`, as the records stood then (an
        instant later than now reads as now)."""
        size = check_limit(limit)
        self._agent_exists(tenant, agent_id)
        now = utcnow()
        if as_of is not None and as_of < now:
            # (An instant at or after now is the plain read: it judges expiry at now too.)
            at = as_of
            if text:
                return Page(items=self._as_of.ranked(tenant, agent_id, text, query, at, size))
            before = str_field(decode_cursor(cursor), "before")
            found = self._as_of.find(tenant, agent_id, query, at, size + 1, before)
            return page(found, size, lambda last: {"before": last.id})
        if text:
            ranked = self._ranking.ranked_for_app(tenant, agent_id, text, query, size)
            return Page(items=ranked, next=None)
        before = str_field(decode_cursor(cursor), "before")
        records = self._store.find_records(tenant, agent_id, query, size + 1, before)
        return page(records, size, lambda last: {"before": last.id})

    def _agent_exists(self, tenant: str, agent_id: str) -> None:
        """An agent deleted part way (its records not all gone yet) shows none of them."""
        if self._store.get_agent(tenant, agent_id) is None:
            raise NotFound(f"agent {agent_id!r} does not exist", code="agent_not_found")

    def get(self, tenant: str, agent_id: str, record_id: str) -> Record:
        self._agent_exists(tenant, agent_id)
        found = self._store.get_records(tenant, agent_id, [record_id])
        if not found:
            raise NotFound(f"record {record_id!r} does not exist", code="record_not_found")
        return found[0].seen_at(utcnow())

    def versions(
        self, tenant: str, agent_id: str, record_id: str, limit: int | None, cursor: str | None
    ) -> Page[RecordVersion]:
        self.get(tenant, agent_id, record_id)
        size = check_limit(limit)
        before = int_field(decode_cursor(cursor), "before")
        found = self._store.record_versions(tenant, agent_id, record_id, size + 1, before)
        return page(found, size, lambda last: {"before": last.record.version})

    def delete(self, tenant: str, agent_id: str, record_id: str, actor: str) -> Record:
        """An app's delete: applies at once; the record and its versions stay readable."""

        def delete_once() -> Record:
            record = self.get(tenant, agent_id, record_id)
            if record.status is RecordStatus.DELETED:
                raise Conflict(f"record {record_id!r} is already deleted", code="record_deleted")
            now = utcnow()
            write = self._deleting(record, actor, now)
            self._store.write_records(tenant, agent_id, [write])  # lost a race: read again
            self._publish(tenant, agent_id, write.record, "delete", now)
            return write.record

        return optimistic(
            delete_once,
            attempts=_DELETE_ATTEMPTS,
            hold=self._store.exclusive,
            exhausted=lambda: Conflict(
                "the record is changing too fast; try again", code="record_busy"
            ),
        )

    def set_expiry(
        self, tenant: str, agent_id: str, record_id: str, expires_at: datetime | None, actor: str
    ) -> Record:
        """An app sets (or, with None, clears) when a record expires: a new version that
        names who changed it. An EXPIRED record not yet purged comes back to ACTIVE when its
        new expiry is later than now, or cleared; a past time expires the record at once."""

        def set_once() -> Record:
            record = self.get(tenant, agent_id, record_id)
            if record.status not in (RecordStatus.ACTIVE, RecordStatus.EXPIRED):
                raise Conflict(
                    f"record {record_id!r} is {record.status.value}: only an ACTIVE or EXPIRED "
                    "record takes an expiry",
                    code="record_not_active",
                )
            now = utcnow()
            changed = record.model_copy(
                update={
                    "expires_at": expires_at,
                    "status": RecordStatus.ACTIVE,
                    "version": record.version + 1,
                    "updated_at": now,
                }
            )
            by = Provenance(actor=actor)
            write = RecordWrite(
                index=self._search.doc_without_vector(changed) if self._search.inline else None,
                record=changed,
                expected_version=record.version,
                versions=[
                    RecordVersion(
                        record=changed, operation=RecordOperation.SET_EXPIRY, changed_by=by, at=now
                    )
                ],
            )
            self._store.write_records(tenant, agent_id, [write])  # lost a race: read again
            self._publish(tenant, agent_id, changed, "set_expiry", now)
            return changed.seen_at(now)

        return optimistic(
            set_once,
            attempts=_DELETE_ATTEMPTS,
            hold=self._store.exclusive,
            exhausted=lambda: Conflict(
                "the record is changing too fast; try again", code="record_busy"
            ),
        )

    def _deleting(self, record: Record, actor: str, now: datetime) -> RecordWrite:
        """The write that deletes `record` as read: a new version, unpinned, if none came
        between (expected_version)."""
        deleted = record.model_copy(
            update={
                "status": RecordStatus.DELETED,
                "pinned": False,
                "version": record.version + 1,
                "updated_at": now,
            }
        )
        by = Provenance(actor=actor)
        return RecordWrite(
            index=self._search.doc_without_vector(deleted) if self._search.inline else None,
            record=deleted,
            expected_version=record.version,
            versions=[
                RecordVersion(
                    record=deleted, operation=RecordOperation.DELETE, changed_by=by, at=now
                )
            ],
        )

    def _publish(
        self, tenant: str, agent_id: str, changed: Record, operation: str, now: datetime
    ) -> None:
        change = Change(id=changed.id, operation=operation, version=changed.version)
        self._events.publish(
            [
                Event(
                    type="agent.memory_updated",
                    tenant=tenant,
                    agent_id=agent_id,
                    session_id=changed.session_id,
                    effect_id=new_id("eff"),
                    changes=[change],
                    at=now,
                )
            ]
        )
