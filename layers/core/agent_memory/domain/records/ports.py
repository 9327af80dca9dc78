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

    @abstractmethod
    def write_records(self, tenant: str, agent_id: str, writes: Sequence[RecordWrite]) -> None:
        """Apply writes outside any turn (an app's change): all or none, each only while its
        expected version holds (PreconditionFailed otherwise)."""


class ExpirySweep(ABC):
    """What the embedded shape's sweeper needs of its store, across tenants: the records whose
    expiry has passed but are still stored ACTIVE, and the purge of those past their retention.

    The cloud shape has no sweeper: a read judges expiry at its own instant (RecordQuery.at),
    and DynamoDB's TTL removes a record's head and versions at its purge instant (the item's
    `ttl`), the stream taking its search document out."""

    @abstractmethod
    def records_expiring(self, now: datetime, limit: int) -> list[Record]:
        """Up to `limit` heads stored ACTIVE whose expiresAt is at or before `now`."""

    @abstractmethod
    def purge_records(self, now: datetime, limit: int) -> list[Record]:
        """Remove up to `limit` records whose purge instant (expiresAt plus the retention when
        it was set) is at or before `now`: head, versions and search document, each record
        in one transaction. Returns the heads removed."""
