"""`agent-memory mcp`: one agent's memory as an MCP server (stdio or streamable HTTP).

An MCP client has no turns, so the server makes them:

- **Session.** The server works in one session of the agent for as long as it runs: made on its
  first call, or the session `--session S` names (made when it does not exist yet, joined when
  it does, so a restarted server can go on where it stopped). Over stdio the MCP host starts a
  server per conversation, so that is one session per MCP session. MCP 2026-07-28 has no
  session of its own (each request stands alone), so over streamable HTTP every client of one
  server shares its session: run a server per conversation, or give each its `--session`.
- **One turn per tool call**, committed at once: a write is visible to the next call, and it is
  recorded on its turn with its provenance (agent version, session, turn, execution), as an
  agent's own call would be. A call the service refuses (a 4xx: the message is for the model)
  comes back as a tool error with the service's text, and its turn is rolled back, so it
  leaves nothing.
- **Resources**: `agent-memory://instructions` (the memory part of a turn's instructions: rules,
  the manifest's instructions, pinned records; read in a turn that is rolled back) and
  `agent-memory://memory-index` (the session's index of /memories files).

The tools are the service's own: `search_memory`, `add_memory`, `read_memory`,
`delete_memory`, `search_history` and `memory` (the six commands of Anthropic's memory tool),
with the input schemas the service validates against (`tool_specs.py`); their answers are the
service's, word for word (the memory tool's texts are those of `domain/files/texts.py`). The
server lists the tools the agent's manifest offers when it starts; a call to another answers
with the service's `tool_not_offered` message.

**Across conversations.** Each conversation is a session, so what one conversation adds in
session scope (add_memory's default when scope.write includes session) is not found by the
next. What is true beyond the conversation must go to agent scope: when the agent writes both
scopes, add_memory's description tells the model to choose `scope: "agent"` for such facts and
to leave the scope out for this conversation's task; an agent that writes agent scope alone
writes every record there. The post-turn review of turns a harness records makes the same
choice for each fact it keeps.

**At start** the server checks the agent (`check`): it stops with a message saying what to do
when the agent does not exist, has record memory off, or (being writable) does not offer
add_memory; with `create=True` an agent that does not exist is made with a manifest that offers
all of it (agent_check.MCP_MANIFEST). An agent that exists is never changed.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from ..client import ApiError, Client, ConnectionFailed
from ..domain.tools.offer import ACROSS_SESSIONS
from .agent_check import MCP_NEEDS, ensure_agent
from .tool_specs import BY_NAME, TOOLS, ToolSpec
from .turns import TurnRunner

logger = logging.getLogger(__name__)

INSTRUCTIONS_URI = "agent-memory://instructions"
INDEX_URI = "agent-memory://memory-index"


class MemoryMcp:
    """The MCP handlers for one agent; `server` is the MCP `Server` to run."""

    def __init__(self, client: Client, agent_id: str, session_id: str | None = None) -> None:
        self.client = client
        self.agent_id = agent_id
        self.runner = TurnRunner(client, agent_id, session_id)
        # Every tool until `check` reads the manifest.
        self.tools: tuple[ToolSpec, ...] = TOOLS
        self.server: Server[Any] = Server(
            "agent-memory",
            instructions=f"Memory and history of the agent {agent_id}: search, remember and "
            "edit notes with its tools; its instructions and memory index are resources.",
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_read_resource=self._read_resource,
        )

    def check(self, *, create: bool = False) -> dict[str, Any]:
        """Check the agent before serving (agent_check.ensure_agent; raises AgentNotReady), and
        keep the tools its manifest offers, add_memory telling the model how to reach later
        conversations when the agent writes both scopes. The agent's manifest is returned."""
        manifest = ensure_agent(self.client, self.agent_id, MCP_NEEDS, create=create)
        self.tools = offered_tools(manifest)
        return manifest

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        offered = await anyio.to_thread.run_sync(self._offered)
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=tool.name,
                    description=tool.description,
                    input_schema=tool.input_schema,
                    annotations=types.ToolAnnotations(read_only_hint=not tool.writes),
                )
                for tool in offered
            ]
        )

    def _offered(self) -> list[ToolSpec]:
        """The tools the agent's manifest offers (`GET .../-/tools`, no turn needed): schemas
        narrowed to its kinds, its labels with their descriptions, and `scope` only where it
        may write agent scope. When the service cannot say, the tools the manifest read at start
        offers (`check`), with the generic schemas (a call the manifest does not offer is
        refused by the service, with its message)."""
        try:
            answer = self.client.request("GET", f"/v1/agents/{self.agent_id}/-/tools")
        except (ApiError, ConnectionFailed) as exc:
            logger.warning(
                "tools listed without the agent's manifest",
                extra={"agent_id": self.agent_id, "error": str(exc)},
            )
            return list(self.tools)
        return [
            ToolSpec(t["name"], t["description"], t["inputSchema"], writes=bool(t["writes"]))
            for t in answer["tools"]
        ]

    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in BY_NAME:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool: {params.name}")
        arguments = dict(params.arguments or {})
        try:
            output = await anyio.to_thread.run_sync(self.runner.call_tool, params.name, arguments)
        except ApiError as exc:
            logger.info(
                "tool call refused",
                extra={"agent_id": self.agent_id, "tool": params.name, "code": exc.code},
            )
            return _error(exc.message)
        except ConnectionFailed as exc:
            return _error(f"the memory service did not answer: {exc.reason}")
        if params.name == "memory":
            # The memory tool answers the model with text alone, as Anthropic's does.
            return types.CallToolResult(content=[types.TextContent(text=output["result"])])
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(output, ensure_ascii=False))],
            structured_content=output,
        )

    async def _list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=INSTRUCTIONS_URI,
                    name="instructions",
                    description="The memory part of the agent's instructions for a turn: rules, "
                    "the manifest's instructions and the pinned records",
                    mime_type="text/plain",
                ),
                types.Resource(
                    uri=INDEX_URI,
                    name="memory-index",
                    description="The index of /memories files this session opens with",
                    mime_type="text/plain",
                ),
            ]
        )

    async def _read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == INSTRUCTIONS_URI:
            read = self._instructions
        elif uri == INDEX_URI:
            read = self._index
        else:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown resource: {uri}")
        try:
            text = await anyio.to_thread.run_sync(read)
        except (ApiError, ConnectionFailed) as exc:
            raise MCPError(code=types.INTERNAL_ERROR, message=str(exc)) from exc
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=text, mime_type="text/plain")]
        )

    def _instructions(self) -> str:
        # A turn's instructions need a turn; reading them changes nothing, so it is rolled back.
        answer = self.runner.run(
            lambda session, turn: self.client.instructions(self.agent_id, session, turn),
            commit=False,
        )
        return str(answer["instructions"])

    def _index(self) -> str:
        return str(self.client.memory_index(self.agent_id, self.runner.session_id)["index"])

    async def run_stdio(self) -> None:
        async with stdio_server() as (read_stream, write_stream):
            await self.server.run(
                read_stream, write_stream, self.server.create_initialization_options()
            )

    async def run_http(self, host: str, port: int) -> None:
        """Streamable HTTP at http://host:port/mcp."""
        import uvicorn

        app = self.server.streamable_http_app(host=host)
        config = uvicorn.Config(app, host=host, port=port, log_level="warning")
        await uvicorn.Server(config).serve()


def offered_tools(manifest: dict[str, Any]) -> tuple[ToolSpec, ...]:
    """The tools `manifest` (as the service stores it, defaults filled in) offers, as the
    service decides it: search_memory with record memory on, the other record tools when
    harness.memory.tools lists them, search_history with a history index, the memory tool with
    a memory section."""
    harness = manifest.get("harness") or {}
    memory = harness.get("memory")
    enabled = bool(memory and memory.get("enabled"))
    listed = set(memory.get("tools", [])) if memory else set()
    write = memory.get("scope", {}).get("write", []) if memory else []
    offered = {
        "search_memory": enabled,
        "add_memory": enabled and "add_memory" in listed,
        "read_memory": enabled and "read_memory" in listed,
        "delete_memory": enabled and "delete_memory" in listed,
        "search_history": bool((harness.get("history") or {}).get("index")),
        "memory": memory is not None,
    }
    tools = []
    for tool in TOOLS:
        if not offered[tool.name]:
            continue
        if tool.name == "add_memory" and "agent" in write and "session" in write:
            tool = replace(tool, description=tool.description + ACROSS_SESSIONS)
        tools.append(tool)
    return tuple(tools)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)
