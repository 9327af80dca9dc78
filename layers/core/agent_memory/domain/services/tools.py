"""Native tools a turn calls: each call is checked, run, and recorded as an execution."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ..errors import DomainError, NotFound
from ..ids import new_id
from ..models import Turn, utcnow
from ..ports import Store
from ..records import Execution
from .records import RecordService
from .sessions import SessionService
from .turn_context import ManifestCache, ToolRefused, TurnContext, parse_caller, root_of

logger = logging.getLogger(__name__)

RECORD_TOOLS = ("add_memory", "read_memory", "delete_memory", "search_memory")
ALWAYS_OFFERED = frozenset({"search_memory"})
Handler = Callable[[TurnContext, dict[str, Any]], dict[str, Any]]


class ToolService:
    """`POST .../turns/{turnId}/tools/{name}`: dispatch to the tool, record the execution."""

    def __init__(
        self,
        store: Store,
        sessions: SessionService,
        records: RecordService,
        manifests: ManifestCache,
    ) -> None:
        self._store = store
        self._sessions = sessions
        self._records = records
        self._manifests = manifests
        self._handlers: dict[str, Handler] = {
            "add_memory": records.add_memory,
            "read_memory": records.read_memory,
            "delete_memory": records.delete_memory,
            "search_memory": records.search_memory,
        }

    def register(self, name: str, handler: Handler) -> None:
        """Other areas (file memory, history) add their tools here."""
        self._handlers[name] = handler

    def context(self, turn: Turn, caller_raw: Any) -> TurnContext:
        return TurnContext(
            turn=turn,
            memory=self._manifests.memory(turn),
            caller=parse_caller(caller_raw),
            root_turn=root_of(self._store, turn),
        )

    def call(
        self,
        tenant: str,
        agent_id: str,
        session_id: str,
        turn_id: str,
        name: str,
        body: dict[str, Any],
    ) -> dict[str, Any]:
        handler = self._handlers.get(name)
        if handler is None:
            raise NotFound(f"there is no native tool {name!r}", code="tool_not_found")
        turn = self._sessions.open_turn(tenant, agent_id, session_id, turn_id)
        arguments = {k: v for k, v in body.items() if k != "caller"}
        ctx = self.context(turn, body.get("caller"))
        execution = Execution(
            id=new_id("exe"),
            turn_id=turn.id,
            tool=name,
            input=arguments,
            caller=ctx.caller.model_dump(mode="json"),
            created_at=utcnow(),
        )
        try:
            self._check_offered(ctx, name)
            output = handler(ctx, arguments)
        except DomainError as exc:
            failed = execution.model_copy(update={"error": exc.to_body()["error"]})
            self._store.add_execution(tenant, agent_id, session_id, failed)
            raise
        retrieved = bool(output.get("records") or output.get("sources"))
        self._store.add_execution(
            tenant,
            agent_id,
            session_id,
            execution.model_copy(update={"output": output, "retrieved": retrieved}),
        )
        return output

    def _check_offered(self, ctx: TurnContext, name: str) -> None:
        if name not in RECORD_TOOLS:
            return
        memory = ctx.memory
        if not memory.enabled:
            raise ToolRefused(
                f"{name} is not offered: this agent's memory is not enabled",
                code="tool_not_offered",
            )
        if name not in ALWAYS_OFFERED and name not in memory.tools:
            raise ToolRefused(
                f"{name} is not offered: harness.memory.tools lists "
                f"{', '.join(memory.tools) or 'no tools'}",
                code="tool_not_offered",
            )

    def instructions(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> dict[str, Any]:
        """The memory part of the turn's instructions. The record versions it lists are kept in
        the transcript as a memory.pinned entry (once per distinct list)."""
        turn = self._sessions.get_turn(tenant, agent_id, session_id, turn_id)
        ctx = self.context(turn, {"role": "agent"})
        text, pins = self._records.instructions(ctx)
        listed = [{"id": r.id, "version": r.version} for r in pins]
        if listed and turn.status.value == "open":
            earlier = [
                e
                for e in self._store.list_executions(tenant, agent_id, session_id, turn_id)
                if e.tool == "memory.pinned"
            ]
            if not earlier or (earlier[-1].output or {}).get("records") != listed:
                self._store.add_execution(
                    tenant,
                    agent_id,
                    session_id,
                    Execution(
                        id=new_id("exe"),
                        turn_id=turn.id,
                        tool="memory.pinned",
                        input={},
                        output={"records": listed},
                        caller={"role": "runtime"},
                        created_at=utcnow(),
                    ),
                )
        pinned = [{"id": r.id, "version": r.version, "summary": r.summary} for r in pins]
        return {"instructions": text, "pinned": pinned}

    def turn_detail(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> dict[str, Any]:
        turn = self._sessions.get_turn(tenant, agent_id, session_id, turn_id)
        ctx = self.context(turn, {"role": "agent"})
        executions = self._store.list_executions(tenant, agent_id, session_id, turn_id)
        return {
            **turn.model_dump(mode="json", by_alias=True),
            "memories": self._records.turn_memories(ctx),
            "executions": [e.model_dump(mode="json", by_alias=True) for e in executions],
        }
