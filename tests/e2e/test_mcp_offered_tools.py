"""The MCP server lists the tools the agent's manifest offers, as the service narrows them
(`GET /v1/agents/{id}/-/tools`), against a live embedded server: the declared kinds and label
descriptions in add_memory's schema, and `scope` only where scope.write includes agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import pytest

from agent_memory.integrations.mcp import MemoryMcp
from manifests import memory_manifest

if TYPE_CHECKING:  # the `server` fixture's type; conftest is not imported at run time
    from conftest import Server

pytestmark = pytest.mark.e2e

AGENT = "teams/mcp/offered"
LABELS = {"customer_id": {"number": 5, "description": "The customer the memory is about."}}


def _listed(server: Server) -> dict[str, object]:
    mcp = MemoryMcp(server.client(), AGENT)
    result = anyio.run(mcp._list_tools, None, None)
    return {tool.name: tool for tool in result.tools}


def test_mcp_lists_the_manifests_tools_with_its_kinds_labels_and_scope(server: Server) -> None:
    # Given an agent that writes session scope only, with its own kinds and a described label
    client = server.client()
    manifest = memory_manifest(
        history=None, kinds=["decision", "fact"], labels=LABELS, tools=["add_memory"]
    )
    manifest["harness"]["memory"]["scope"] = {"read": ["session"], "write": ["session"]}
    client.put_agent(AGENT, manifest)
    # When an MCP host lists the tools
    tools = _listed(server)
    # Then it is offered what the manifest offers, add_memory narrowed to it, and no scope
    assert sorted(tools) == ["add_memory", "memory", "search_memory"]
    add = tools["add_memory"].input_schema["properties"]  # type: ignore[attr-defined]
    assert add["kind"]["enum"] == ["decision", "fact"]
    assert add["labels"]["properties"]["customer_id"]["description"] == (
        "The customer the memory is about."
    )
    assert "scope" not in add
    assert tools["add_memory"].annotations.read_only_hint is False  # type: ignore[attr-defined]
    # When the manifest lets it write agent scope, scope is offered
    manifest["harness"]["memory"]["scope"] = {"read": ["session"], "write": ["session", "agent"]}
    client.put_agent(AGENT, manifest)
    add = _listed(server)["add_memory"].input_schema["properties"]  # type: ignore[attr-defined]
    assert add["scope"]["enum"] == ["session", "agent"]


def test_mcp_lists_every_tool_when_the_service_cannot_say(server: Server) -> None:
    # Given an agent that does not exist: the service answers 404 and the listing stays whole
    tools = _listed(server)
    assert sorted(tools) == sorted(
        ["search_memory", "add_memory", "read_memory", "delete_memory", "search_history", "memory"]
    )
