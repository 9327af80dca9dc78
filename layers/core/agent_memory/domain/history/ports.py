"""Port of the history capability: each session's events.

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from .models import HistoryEvent


class HistoryStore(ABC):
    """Events of a session's turns, as history keeps them."""

    @abstractmethod
    def append_events(
        self, tenant: str, agent_id: str, session_id: str, events: Sequence[HistoryEvent]
    ) -> bool:
        """Keep events of an open turn. An event whose id is kept already is left as it is
        (appends are idempotent); PreconditionFailed if the turn does not exist. True when this
        call wrote every event as given (no id of them was kept before, none given twice), so
        what their ids hold is known without reading it back; False when it may not have."""

    @abstractmethod
    def turn_events(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[HistoryEvent]:
        """One turn's events in sequence order."""

    @abstractmethod
    def get_events(
        self, tenant: str, agent_id: str, session_id: str, ids: Sequence[str]
    ) -> list[HistoryEvent]: ...

    @abstractmethod
    def session_events(
        self,
        tenant: str,
        agent_id: str,
        session_id: str,
        limit: int,
        after: tuple[int, int] | None,
        from_turn: int | None = None,
        to_turn: int | None = None,
    ) -> list[HistoryEvent]:
        """Events of every turn in (turn, sequence) order after `after`, within the turn range."""
