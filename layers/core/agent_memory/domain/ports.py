"""Ports: the typed interfaces the services depend on. Adapters live in agent_memory.adapters.

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime

from .errors import Conflict
from .models import Agent, ManifestVersion, Session, Turn, TurnStatus


class PreconditionFailed(Conflict):
    """A conditional write lost a race; the service decides whether to retry or report it."""

    code = "precondition_failed"


class AgentStore(ABC):
    """Agents and their manifest versions. Every save is a new version, written atomically."""

    @abstractmethod
    def create_agent(self, agent: Agent, version: ManifestVersion) -> None:
        """Store a new agent with its first manifest version; PreconditionFailed if it exists."""

    @abstractmethod
    def save_manifest(self, agent: Agent, version: ManifestVersion, expected_version: int) -> None:
        """Store a new head and version while the head is still at expected_version."""

    @abstractmethod
    def get_agent(self, tenant: str, agent_id: str) -> Agent | None:
        """The agent, or None when it does not exist or is being deleted."""

    @abstractmethod
    def list_agents(self, tenant: str, limit: int, after: str | None) -> list[Agent]:
        """Up to `limit` agents of a tenant ordered by id, only those after `after`."""

    @abstractmethod
    def list_manifest_versions(
        self, tenant: str, agent_id: str, limit: int, before: int | None
    ) -> list[ManifestVersion]:
        """Versions newest first, only those below `before` when given."""

    @abstractmethod
    def get_manifest_version(
        self, tenant: str, agent_id: str, version: int
    ) -> ManifestVersion | None: ...

    @abstractmethod
    def delete_agent(self, tenant: str, agent_id: str) -> bool:
        """Delete the agent and everything it owns; False when there was no agent.

        Safe to call again after a crash: an interrupted delete is finished by the next call.
        """


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
    def end_turn(self, turn: Turn, status: TurnStatus, ended_at: datetime) -> Turn:
        """Move an open turn to committed or rolled back; PreconditionFailed if it is not open."""


class Store(AgentStore, SessionStore, ABC):
    """Everything the foundation keeps, behind one object per adapter."""

    def close(self) -> None:  # noqa: B027 - optional hook, most adapters hold nothing to close
        """Release connections."""
