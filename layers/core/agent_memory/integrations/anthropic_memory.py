"""A backend for Anthropic's memory tool that keeps Claude's /memories in agent-memory.

`AgentMemoryTool` is a `BetaAbstractMemoryTool` of the anthropic SDK: give it to
`client.beta.messages.tool_runner(tools=[...])` (or call `tool.call(block.input)` yourself) and
each of Claude's commands (view, create, str_replace, insert, delete, rename) runs through the
`memory` tool endpoint of a turn of this service. So what Claude writes gets versions (actor,
session, turn), compare-and-swap against other writers, the session's memory index and search,
and the answers are the service's texts, which are the memory tool documentation's.

Turns: by default each command runs in a turn of its own in one session, committed at once (a
refused command rolls its turn back). A harness that runs turns itself passes `session_id` and
`turn_id`: commands then join that turn, and what they write applies when the harness commits
it (checked again then against what the turn read: `409 memory_conflict` if another writer
changed a file meanwhile).

A refused command raises the SDK's `ToolError` with the service's text, which the tool runner
hands to Claude as an error result.

Across conversations: /memories files belong to the agent, not to a session, so what Claude
writes in one conversation (one `AgentMemoryTool`, one session) is there for the next: give
each conversation its own tool (or `session_id`) on the same `agent_id`.

At start the tool checks the agent: it raises `AgentNotReady` (its message says what to do)
when the agent does not exist or declares no `harness.memory` (it then offers no memory tool);
with `create_agent=True` an agent that does not exist is made with memory on. An agent that
exists is never changed.
"""

from __future__ import annotations

from typing import Any

from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from ..client import ApiError, Client, ConnectionFailed
from .agent_check import MEMORY_TOOL_NEEDS, AgentNotReady, ensure_agent
from .turns import TurnRunner

__all__ = ["AgentMemoryTool", "AgentNotReady"]


class AgentMemoryTool(BetaAbstractMemoryTool):
    """Claude's memory tool, stored in the agent `agent_id` of an agent-memory service.

    `session_id` alone: commands run in that session (made when absent), a committed turn
    each. With `turn_id` too: commands join that open turn, which the caller commits. Neither:
    a session is made on the first command.

    The agent is checked here (one request): `AgentNotReady` when it does not exist or offers
    no memory tool; `create_agent` makes one that does not exist."""

    def __init__(
        self,
        client: Client,
        agent_id: str,
        *,
        session_id: str | None = None,
        turn_id: str | None = None,
        caller: dict[str, Any] | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
        create_agent: bool = False,
    ) -> None:
        super().__init__(cache_control=cache_control)
        if turn_id is not None and session_id is None:
            raise ValueError("turn_id needs the session_id the turn belongs to")
        ensure_agent(client, agent_id, MEMORY_TOOL_NEEDS, create=create_agent)
        self.client = client
        self.agent_id = agent_id
        self.turn_id = turn_id
        self.caller = caller
        self.runner = TurnRunner(client, agent_id, session_id)

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return self._run(command.to_dict())

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return self._run(command.to_dict())

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return self._run(command.to_dict())

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return self._run(command.to_dict())

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return self._run(command.to_dict())

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return self._run(command.to_dict())

    def clear_all_memory(self) -> str:
        """Delete every memory of the agent at once, through the management API (each a
        version naming the token's subject)."""
        paths: list[str] = []
        cursor = None
        while True:
            page = self.client.list_memories(self.agent_id, cursor=cursor)
            paths += [memory["path"] for memory in page["memories"]]
            cursor = page.get("next")
            if not cursor:
                break
        for path in paths:
            self.client.delete_memory(self.agent_id, path)
        return f"Deleted {len(paths)} memories"

    def _run(self, arguments: dict[str, Any]) -> str:
        try:
            if self.turn_id is not None:
                output = self.client.call_tool(
                    self.agent_id,
                    self.runner.session_id,
                    self.turn_id,
                    "memory",
                    caller=self.caller,
                    **arguments,
                )
            else:
                output = self.runner.run(
                    lambda session, turn: self.client.call_tool(
                        self.agent_id, session, turn, "memory", caller=self.caller, **arguments
                    )
                )
        except ApiError as exc:
            # The service's message is the text the memory tool answers a failure with.
            raise ToolError(exc.message) from exc
        except ConnectionFailed as exc:
            raise ToolError(f"Error: the memory service did not answer: {exc.reason}") from exc
        return str(output["result"])
