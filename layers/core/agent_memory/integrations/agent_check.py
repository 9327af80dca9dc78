"""The check the MCP server and Claude's memory tool make when they start: the agent exists and
its manifest offers what they serve, or they stop at once with a message that says what to do,
rather than starting for an agent that fails every call.

Asked to (`--create-agent`, `create_agent=True`), an agent that does not exist is made with a
manifest that offers what they need. An agent that exists is never changed: its manifest is
its owner's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..client import ApiError, Client, ConnectionFailed

logger = logging.getLogger(__name__)

# What the MCP server serves: record memory that reaches every conversation (each connection is
# a session; a durable fact goes to agent scope), the four record tools, the session's history
# and the /memories notes.
MCP_MANIFEST: dict[str, Any] = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "tools": ["add_memory", "read_memory", "delete_memory", "search_memory"],
        },
        "history": {"index": "messages_and_tools"},
    }
}

# What Claude's memory tool needs: a declared memory section (its /memories files).
MEMORY_TOOL_MANIFEST: dict[str, Any] = {"harness": {"memory": {"enabled": True}}}


class AgentNotReady(Exception):
    """The agent cannot serve: it does not exist, its manifest lacks what is needed, or the
    service could not be asked. `code` says which; the message says what to do."""

    def __init__(self, agent_id: str, code: str, message: str) -> None:
        self.agent_id = agent_id
        self.code = code
        self.message = message
        super().__init__(message)


@dataclass(frozen=True)
class Needs:
    """What a caller serves and the manifest it creates: `problems` lists what the agent's
    stored manifest lacks (empty: ready); `create_flag` names how to ask for creation."""

    what: str
    manifest: dict[str, Any]
    problems: Callable[[str, dict[str, Any]], list[str]]
    create_flag: str


def _memory(manifest: dict[str, Any]) -> dict[str, Any] | None:
    harness = manifest.get("harness")
    memory = harness.get("memory") if isinstance(harness, dict) else None
    return memory if isinstance(memory, dict) else None


def mcp_problems(agent_id: str, manifest: dict[str, Any]) -> list[str]:
    """What the MCP server needs of a manifest: record memory enabled; a writable agent offers
    add_memory (each conversation remembers through it)."""
    memory = _memory(manifest)
    if memory is None or not memory.get("enabled"):
        return [
            f"agent {agent_id!r} has record memory off: set harness.memory.enabled to true in "
            "its manifest"
        ]
    if memory.get("access") != "read_only" and "add_memory" not in memory.get("tools", []):
        listed = ", ".join(memory.get("tools", [])) or "no tools"
        return [
            f"agent {agent_id!r} does not offer add_memory (harness.memory.tools lists "
            f"{listed}): add it to harness.memory.tools, or set harness.memory.access to "
            "read_only for a server that only searches"
        ]
    return []


def memory_tool_problems(agent_id: str, manifest: dict[str, Any]) -> list[str]:
    """What Claude's memory tool needs: a declared harness.memory (its /memories files)."""
    if _memory(manifest) is None:
        return [
            f"agent {agent_id!r} declares no harness.memory, so it offers no memory tool: add "
            'a "memory" section to its manifest\'s harness, such as {"enabled": true}'
        ]
    return []


MCP_NEEDS = Needs("the MCP server", MCP_MANIFEST, mcp_problems, "--create-agent")
MEMORY_TOOL_NEEDS = Needs(
    "the memory tool", MEMORY_TOOL_MANIFEST, memory_tool_problems, "create_agent=True"
)


def ensure_agent(client: Client, agent_id: str, needs: Needs, *, create: bool) -> dict[str, Any]:
    """The agent's stored manifest, once it is known to offer what `needs` describes; with
    `create`, an agent that does not exist is made with `needs.manifest` first. Raises
    AgentNotReady otherwise."""
    try:
        try:
            agent = client.get_agent(agent_id)
        except ApiError as exc:
            if exc.status != 404:
                raise
            if not create:
                raise AgentNotReady(
                    agent_id,
                    "agent_not_found",
                    f"agent {agent_id!r} does not exist at {client.url}: create it "
                    f"(agent-memory agents put {agent_id} manifest.json), or start "
                    f"{needs.what} with {needs.create_flag} to make it with a manifest that "
                    "offers what it needs",
                ) from None
            agent = client.put_agent(agent_id, needs.manifest)
            logger.info("agent created", extra={"agent_id": agent_id, "for": needs.what})
    except ApiError as exc:
        raise AgentNotReady(
            agent_id,
            exc.code,
            f"the memory service refused to read agent {agent_id!r}: {exc.message}",
        ) from exc
    except ConnectionFailed as exc:
        raise AgentNotReady(
            agent_id,
            exc.code,
            f"the memory service did not answer at {exc.url} ({exc.reason}): start it "
            "(agent-memory serve) or pass --url / set AGENT_MEMORY_URL",
        ) from exc
    manifest: dict[str, Any] = agent["manifest"]
    problems = needs.problems(agent_id, manifest)
    if problems:
        raise AgentNotReady(
            agent_id, "agent_not_ready", f"{needs.what} cannot start: {problems[0]}"
        )
    return manifest
