"""Port of the usage capability: each turn's model and search usage.

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from .models import Usage, UsageTotal


class UsageStore(ABC):
    """Model calls, per turn and per agent."""

    @abstractmethod
    def add_usage(self, tenant: str, agent_id: str, entries: Sequence[Usage]) -> None:
        """Keep the entries and add them to the agent's totals."""

    @abstractmethod
    def list_usage(
        self, tenant: str, agent_id: str, turn_id: str | None, limit: int, before: str | None
    ) -> list[Usage]:
        """Entries newest first (one turn's, or the agent's), ids below `before`."""

    @abstractmethod
    def usage_totals(self, tenant: str, agent_id: str) -> list[UsageTotal]:
        """Calls and tokens by purpose and model, over the agent's life."""
