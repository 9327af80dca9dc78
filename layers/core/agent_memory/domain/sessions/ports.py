"""Ports of the sessions capability: sessions, their turns and what a commit applies.

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..files import FileWrite
from ..kernel.models import (
    Session,
    Turn,
    TurnStatus,
)
from ..records import Execution, RecordWrite
from ..search import IndexDoc
from ..turns import Effect


@dataclass(frozen=True)
class TurnWrites:
    """What a commit applies with its turn's end: record writes, file writes (the agent may
    hold at most `max_files` memories after them) and search documents (history), which only a
    store holding its own index writes (the cloud indexes from the table's stream)."""

    records: Sequence[RecordWrite] = ()
    files: Sequence[FileWrite] = ()
    max_files: int = 10_000
    index_docs: Sequence[IndexDoc] = ()
    # How many effects the turn had staged when the commit read them: the turn ends only while
    # it holds exactly these (PreconditionFailed when a tool call staged another meanwhile).
    effects: int | None = None


NO_WRITES = TurnWrites()


class SessionStore(ABC):
    """Sessions of an agent and their turns."""

    @abstractmethod
    def create_session(self, session: Session) -> None:
        """PreconditionFailed if the session exists; NotFound if the agent does not."""

    @abstractmethod
    def get_session(self, tenant: str, agent_id: str, session_id: str) -> Session | None: ...

    @abstractmethod
    def list_sessions(
        self, tenant: str, agent_id: str, limit: int, after: str | None
    ) -> list[Session]:
        """Sessions ordered by id (ids sort by creation time), only those after `after`."""

    @abstractmethod
    def begin_turn(self, turn: Turn) -> None:
        """Store the turn and move the session's last sequence to turn.sequence, both or neither.

        PreconditionFailed unless the session's last sequence is turn.sequence - 1, so
        sequences stay gap-free under concurrent begins.
        """

    @abstractmethod
    def get_turn(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> Turn | None: ...

    @abstractmethod
    def list_turns(self, tenant: str, agent_id: str, session_id: str) -> list[Turn]:
        """Every turn of the session, in sequence order."""

    @abstractmethod
    def end_turn(
        self,
        turn: Turn,
        status: TurnStatus,
        ended_at: datetime,
        writes: TurnWrites = NO_WRITES,
    ) -> Turn:
        """Move an open turn to committed or rolled back and apply `writes` with it: all or
        none. The turn's `extraction` (a queued review) and, on a commit, its `memory_updates`
        (what each call changed) are kept with it.

        PreconditionFailed if the turn is not open or any expected version does not hold;
        LimitExceeded if the file writes would take the agent past max_files memories.
        """


class TurnLog(ABC):
    """What a turn did: the native tool calls it made and the writes it staged."""

    @abstractmethod
    def add_execution(
        self, tenant: str, agent_id: str, session_id: str, execution: Execution
    ) -> None:
        """Record one tool call on its turn."""

    @abstractmethod
    def list_executions(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[Execution]:
        """The turn's executions in the order they were made."""

    @abstractmethod
    def stage_effect(self, tenant: str, agent_id: str, session_id: str, effect: Effect) -> None:
        """Keep a write until the turn ends. PreconditionFailed if the turn already staged an
        effect with this effect_id or this sequence."""

    @abstractmethod
    def staged_effects(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[Effect]:
        """The turn's staged writes in sequence order."""
