"""Agents: the manifest an agent runs under and its saved versions, named manifests agents
follow, the agents port, and the services that create, fork, update and delete agents and
search across one agent."""

# What other capabilities use: they import these names from the package, never its modules.
from .service import AgentService, parse_manifest

__all__ = [
    "AgentService",
    "parse_manifest",
]
