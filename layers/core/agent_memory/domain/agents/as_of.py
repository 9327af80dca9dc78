"""The agent as it stood at a past instant: its manifest version then (manifest versions are
kept whole, each with the time it was saved)."""

from __future__ import annotations

from datetime import datetime

from ..kernel.errors import NotFound
from ..kernel.models import Agent, utcnow
from .ports import AgentStore

PAGE = 50


def agent_as_of(store: AgentStore, agent: Agent, at: datetime) -> Agent:
    """`agent` with the manifest version current at `at` (an instant later than now reads as
    now); NotFound when its first version came after `at`."""
    at = min(at, utcnow())
    if agent.updated_at <= at:
        return agent
    before: int | None = None
    while True:
        versions = store.list_manifest_versions(agent.tenant, agent.id, PAGE, before)
        for version in versions:  # newest first
            if version.created_at <= at:
                return agent.model_copy(
                    update={
                        "manifest_version": version.version,
                        "manifest": version.manifest,
                        "updated_at": version.created_at,
                    }
                )
        if len(versions) < PAGE:
            raise NotFound(
                f"agent {agent.id!r} did not exist at {at.isoformat()}", code="agent_not_found"
            )
        before = versions[-1].version
