"""Port of the audit capability: the trail of who changed what.

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime

from .models import AuditEntry


class AuditStore(ABC):
    """The audit trail of each tenant, oldest first."""

    @abstractmethod
    def append_audit(self, entry: AuditEntry) -> None:
        """Keep one entry."""

    @abstractmethod
    def list_audit(
        self,
        tenant: str,
        after: str | None,
        limit: int,
        agent_id: str | None,
        actor: str | None,
        now: datetime,
    ) -> list[AuditEntry]:
        """Entries with ids above `after`, oldest first, of one agent and/or actor when given;
        none whose expiry has passed at `now`."""
