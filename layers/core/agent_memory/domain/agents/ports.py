"""Ports of the agents capability: agents and their manifest versions.

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..kernel.models import (
    Agent,
    ManifestVersion,
)


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
    def agent_ids(self, tenant: str, limit: int) -> list[str]:
        """Up to `limit` ids of the tenant's agents, counting those whose delete was started
        and not finished (which list_agents leaves out): what a tenant reset still has to do."""

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
