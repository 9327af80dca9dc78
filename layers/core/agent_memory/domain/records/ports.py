"""Port of the records capability: structured memories and their versions.

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from datetime import datetime

from .models import Record, RecordQuery, RecordVersion, RecordWrite


class RecordStore(ABC):
    """Memory records of an agent: a head per record and every version of it."""

    @abstractmethod
    def get_records(self, tenant: str, agent_id: str, ids: Iterable[str]) -> list[Record]:
        """The heads of the records with these ids that exist, whatever their status."""

    @abstractmethod
    def find_records(
        self, tenant: str, agent_id: str, query: RecordQuery, limit: int, before: str | None
    ) -> list[Record]:
        """Up to `limit` records matching `query`, newest (highest id) first, ids below `before`."""

    @abstractmethod
    def record_versions(
        self, tenant: str, agent_id: str, record_id: str, limit: int, before: int | None
    ) -> list[RecordVersion]:
        """Versions of one record, newest first, only those below `before` when given."""

    @abstractmethod
    def records_at(
        self, tenant: str, agent_id: str, ids: Iterable[str], at: datetime
    ) -> list[Record]:
        """Each record of `ids` as its newest version made at or before `at` left it (an as-of
        read), in id order; a record with no version by then is left out."""

    def find_records_at(
        self,
        tenant: str,
        agent_id: str,
        query: RecordQuery,
        at: datetime,
        limit: int,
        before: str | None,
    ) -> list[Record]:
        """Up to `limit` records matching the fields of `query` no version changes (kinds,
        labels, ids, scope, preview; its statuses and pinned are not applied), newest first,
        ids below `before`, each as its newest version made at or before `at` left it; those
        with no version by then are left out. Fewer than `limit`: there are no more.

        This body reads heads then their versions; a store that can join the two in one read
        (SqliteStore) answers it that way."""
        wide = query.model_copy(update={"statuses": frozenset(), "pinned": None, "at": at})
        found: list[Record] = []
        cursor = before
        while len(found) < limit:
            heads = self.find_records(tenant, agent_id, wide, limit, cursor)
            changed = {h.id for h in heads if h.updated_at > at and h.created_at <= at}
            then = {r.id: r for r in self.records_at(tenant, agent_id, changed, at)}
            for head in heads:
                state = head if head.updated_at <= at else then.get(head.id)
                if state is not None:
                    found.append(state)
            if len(heads) < limit:
                break
            cursor = heads[-1].id
        return found[:limit]

    @abstractmethod
    def write_records(self, tenant: str, agent_id: str, writes: Sequence[RecordWrite]) -> None:
        """Apply writes outside any turn (an app's change): all or none, each only while its
        expected version holds (PreconditionFailed otherwise)."""


class ExpiringRecords(ABC):
    """What an expiry sweep needs of its store, across tenants: the records whose expiry has
    passed but are still stored ACTIVE. Both shapes: the embedded worker's sweeper, and the
    cloud's scheduled sweep (a step of the consolidation state machine)."""

    @abstractmethod
    def records_expiring(self, now: datetime, limit: int) -> list[Record]:
        """Up to `limit` heads stored ACTIVE whose expiresAt is at or before `now`, soonest
        expiry first."""


class ExpirySweep(ExpiringRecords):
    """The embedded shape's sweeper also purges: records past their retention go with their
    versions and search documents.

    The cloud shape does not purge here: DynamoDB's TTL removes a record's head and versions at
    its purge instant (the item's `ttl`), the stream taking its search document out."""

    @abstractmethod
    def purge_records(self, now: datetime, limit: int) -> list[Record]:
        """Remove up to `limit` records whose purge instant (expiresAt plus the retention when
        it was set) is at or before `now`: head, versions and search document, each record
        in one transaction. Returns the heads removed."""
