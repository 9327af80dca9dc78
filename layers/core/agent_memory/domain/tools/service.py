"""Native tools a turn calls: each call is checked, run, and recorded as an execution.

`ToolService` is the registry and dispatch; the turn's other reads live beside it and it
delegates to them: recall (`recall`), the memory instructions (`instructions`), turn detail and
usage (`turn_reads`), and what an execution records (`executions`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from ..kernel.errors import DomainError, NotFound
from ..kernel.ids import new_id
from ..kernel.metrics import NO_METRICS, TOOL_CALLS, Metrics
from ..kernel.models import Turn, utcnow
from ..kernel.where import TurnRef
from ..manifests import Manifest
from ..records import (
    AddMemoryIn,
    Execution,
    IdIn,
    MemoriesOut,
    RecordService,
    RecordsOut,
    SearchMemoryIn,
    SourcesOut,
    tool_input_error,
)
from ..search import SearchService
from ..secrets import redact_tree
from ..sessions import SessionService, TurnAccess, TurnReads, TurnWithWrites, record_usage
from ..turns import ManifestCache, ToolOut, ToolRefused, TurnContext, parse_caller, root_of
from ..usage import UsagePage
from .executions import EXECUTION_MAX_BYTES, KEPT_CHARS, RECORDED_DEPTH, fitted
from .instructions import HISTORY_RULE, Instructions
from .io import InstructionsOut, OfferedTool, RecallIn, RecallOut
from .offer import offered_tools
from .recall import RECALL_LOOKBACK_TURNS, RECALL_QUERY_CHARS, Recall, memory_block

if TYPE_CHECKING:
    from ..store import Store

__all__ = [
    "EXECUTION_MAX_BYTES",
    "HISTORY_RULE",
    "KEPT_CHARS",
    "RECALL_LOOKBACK_TURNS",
    "RECALL_QUERY_CHARS",
    "RECORDED_DEPTH",
    "Tool",
    "ToolService",
    "fitted",
    "memory_block",
]

logger = logging.getLogger(__name__)

RECORD_TOOLS = ("add_memory", "read_memory", "delete_memory", "search_memory")
ALWAYS_OFFERED = frozenset({"search_memory"})
# Tools whose executions carry the spec's runtime marker (file-memory: the memory tool).
RUNTIME_TOOLS = frozenset({"memory"})
# A tool takes its validated input model and returns its output model.
Handler = Callable[[TurnContext, Any], ToolOut]
# Checks made before the input is read (who may call it, whether it is offered), on the raw
# arguments, so a refused call says so whatever its input.
Guard = Callable[[TurnContext, dict[str, Any]], None]
# The tool's own error for input its model refuses (each tool kept its codes and texts).
Invalid = Callable[[dict[str, Any], ValidationError], DomainError]


@dataclass(frozen=True)
class Tool:
    """A registered tool: its handler, its input and output models, and how it refuses."""

    handler: Handler
    input: type[BaseModel]
    output: type[ToolOut]
    invalid: Invalid
    guard: Guard | None = None

    def run(self, ctx: TurnContext, arguments: dict[str, Any]) -> ToolOut:
        if self.guard is not None:
            self.guard(ctx, arguments)
        try:
            args = self.input.model_validate(arguments)
        except ValidationError as exc:
            raise self.invalid(arguments, exc) from exc
        return self.handler(ctx, args)


def _writer(tool: str) -> Guard:
    def guard(ctx: TurnContext, _arguments: dict[str, Any]) -> None:
        ctx.require_writer(tool)

    return guard


def _record_input_error(tool: str) -> Invalid:
    return lambda _arguments, exc: tool_input_error(tool, exc)


class ToolService:
    """`POST .../turns/{turnId}/tools/{name}`: dispatch to the tool, record the execution."""

    def __init__(
        self,
        store: Store,
        sessions: SessionService,
        records: RecordService,
        manifests: ManifestCache,
        search: SearchService | None = None,
        metrics: Metrics = NO_METRICS,
    ) -> None:
        self._store = store
        self._metrics = metrics
        self._sessions = sessions
        self._manifests = manifests
        turns = TurnAccess(store, sessions, records, self.context)
        self._recall = Recall(turns)
        self._instructions = Instructions(turns, manifests)
        self._reads = TurnReads(turns, search)
        self._tools: dict[str, Tool] = {}
        # (name, handler, input, output, whether only a writer may call it)
        record_tools: list[tuple[str, Handler, type[BaseModel], type[ToolOut], bool]] = [
            ("add_memory", records.add_memory, AddMemoryIn, MemoriesOut, True),
            ("read_memory", records.read_memory, IdIn, SourcesOut, False),
            ("delete_memory", records.delete_memory, IdIn, MemoriesOut, True),
            ("search_memory", records.search_memory, SearchMemoryIn, RecordsOut, False),
        ]
        for name, handler, input_model, output_model, writes in record_tools:
            self.register(
                name,
                handler,
                input_model,
                output_model,
                invalid=_record_input_error(name),
                guard=_writer(name) if writes else None,
            )

    def register(
        self,
        name: str,
        handler: Handler,
        input_model: type[BaseModel],
        output_model: type[ToolOut],
        *,
        invalid: Invalid,
        guard: Guard | None = None,
    ) -> None:
        """Other areas (file memory, history) add their tools here."""
        self._tools[name] = Tool(handler, input_model, output_model, invalid, guard)

    @property
    def tools(self) -> dict[str, Tool]:
        """Every registered tool by name (the OpenAPI document describes their models)."""
        return dict(self._tools)

    def context(self, turn: Turn, caller_raw: Any, sessions_of: str | None = None) -> TurnContext:
        manifest = self._manifests.manifest(turn)
        return TurnContext(
            turn=turn,
            memory=manifest.harness.memory,
            caller=parse_caller(caller_raw),
            root_turn=root_of(self._store, turn),
            memory_declared=manifest.memory_declared,
            sessions_of=sessions_of,
        )

    def call(
        self,
        where: TurnRef,
        name: str,
        body: dict[str, Any],
        sessions_of: str | None = None,
    ) -> ToolOut:
        """`sessions_of`: the subject whose sessions alone the caller reaches (None: all)."""
        tool = self._tools.get(name)
        if tool is None:
            raise NotFound(f"there is no native tool {name!r}", code="tool_not_found")
        turn = self._sessions.open_turn(where)
        arguments = {k: v for k, v in body.items() if k != "caller"}
        ctx = self.context(turn, body.get("caller"), sessions_of)
        execution = _execution(ctx, name, arguments)
        ctx = replace(ctx, execution_id=execution.id)
        try:
            self._check_offered(ctx, name)
            result = tool.run(ctx, arguments)
        except DomainError as exc:
            if exc.code == "tool_not_offered":
                exc.message = f"{exc.message}{self._version_note(turn)}"
                exc.args = (exc.message,)
            failed = execution.model_copy(update={"error": exc.to_body()["error"]})
            self._store.add_execution(
                where.tenant, where.agent_id, where.session_id, fitted(failed)
            )
            self._metrics.count(TOOL_CALLS, tool=name, outcome=exc.code)
            raise
        output = result.dump()
        retrieved = bool(output.get("records") or output.get("sources") or output.get("events"))
        done = execution.model_copy(
            update={
                "output": output,
                "retrieved": retrieved,
                "usage": [u.as_dict() for u in ctx.usage],
            }
        )
        # One write for the call's record and what it spent (SQLite: one transaction, so a
        # search waits for the file's write lock once, not twice).
        with self._store.batched():
            self._store.add_execution(where.tenant, where.agent_id, where.session_id, fitted(done))
            self.record_usage(turn, execution.id, ctx)
        self._metrics.count(TOOL_CALLS, tool=name, outcome="ok")
        return result

    def record_usage(self, turn: Turn, execution_id: str | None, ctx: TurnContext) -> None:
        record_usage(self._store, turn, execution_id, ctx)

    def _version_note(self, turn: Turn) -> str:
        """A turn runs the manifest version it began with: a refusal says which, and when a
        newer one is saved, that the session's next turn runs it."""
        note = f" (this turn runs manifest version {turn.manifest_version}"
        agent = self._store.get_agent(turn.tenant, turn.agent_id)
        if agent is not None and agent.manifest_version > turn.manifest_version:
            note += f"; version {agent.manifest_version} is saved, and a new turn picks it up"
        return note + ")"

    def _check_offered(self, ctx: TurnContext, name: str) -> None:
        if name == "memory" and not ctx.memory_declared:
            raise ToolRefused(
                "memory is not offered: this agent's manifest declares no harness.memory",
                code="tool_not_offered",
            )
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

    def offered(self, tenant: str, agent_id: str) -> list[OfferedTool]:
        """The tools a session turn begun now offers (the agent's current manifest), with
        their schemas narrowed to it (tool_offer); a 404 for a missing agent."""
        agent = self._sessions.agent_of(tenant, agent_id)
        return offered_tools(Manifest.model_validate(agent.manifest))

    def instructions(self, where: TurnRef) -> InstructionsOut:
        """The memory part of the turn's instructions (see `instructions.Instructions`)."""
        return self._instructions.instructions(where)

    def turn_detail(self, where: TurnRef) -> TurnWithWrites:
        return self._reads.turn_detail(where)

    def recall(self, where: TurnRef, args: RecallIn) -> RecallOut:
        """The records that best match the turn's current context (see `recall.Recall`)."""
        return self._recall.recall(where, args)

    def usage(
        self,
        tenant: str,
        agent_id: str,
        turn_id: str | None,
        limit: int | None,
        cursor: str | None,
    ) -> UsagePage:
        return self._reads.usage(tenant, agent_id, turn_id, limit, cursor)


def _execution(ctx: TurnContext, name: str, arguments: dict[str, Any]) -> Execution:
    """The call as it is recorded before it runs (its output or error is added after)."""
    return Execution(
        id=new_id("exe"),
        turn_id=ctx.turn.id,
        tool=name,
        # Under the secret guard's block nothing the service keeps holds a secret: neither
        # a refused write's arguments nor a search for one.
        input=redact_tree(arguments) if ctx.memory.secrets == "block" else arguments,
        caller=ctx.caller.model_dump(mode="json"),
        created_at=utcnow(),
        kind="runtime" if name in RUNTIME_TOOLS else None,
    )
