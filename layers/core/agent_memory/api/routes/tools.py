"""Native tools and the memory part of a turn's instructions."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query

from ...domain.kernel.deferred import DeferredModel
from ...domain.tools.io import InstructionsOut, OfferedTool, RecallIn, RecallOut
from ...domain.usage.models import UsagePage
from ...services import Services
from ..answers import JsonObject, ToolCallOut
from ..own_sessions import OwnSessions
from ..paths import agent_id_from
from .agents import AgentId, Cursor, Limit
from .common import ERRORS, caller_of
from .sessions import TURN, SessionId, TurnId

ToolName = Annotated[
    str,
    Path(
        description="add_memory, read_memory, delete_memory, search_memory, memory, search_history"
    ),
]


class OfferedTools(DeferredModel):
    tools: list[OfferedTool]


# Marks the operations whose body states a caller role (`caller.role`), which the credential
# must hold: the isolation tests find them by it.
STATES_CALLER = {"x-caller-role": True}
# Any JSON object: the tool checks its own input (its 4xx in its own words), and the document
# names each tool's input and output (openapi_tools).
ToolBody = Annotated[JsonObject, Body()]


def tools_router(services: Services) -> Router:
    router = Router()
    _offered_route(router, services)
    _call_route(router, services)
    _instructions_route(router, services)
    _recall_route(router, services)
    _usage_route(router, services)
    return router


def _offered_route(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)

    @router.get(
        "/v1/agents/<agent_id>/tools",
        summary="The native tools the agent's manifest offers, as a model is offered them",
        description="What a session turn begun now offers, each with its input schema narrowed "
        "to the current manifest: kind as the declared kinds, labels as the declared labels with "
        "their descriptions, scope only when scope.write includes agent. A turn's instructions "
        "give those of the manifest version it runs.",
        responses=ERRORS,
        tags=["tools"],
    )
    def offered_tools(agent_id: AgentId) -> OfferedTools:
        who = caller()
        who.can_read()
        return OfferedTools(tools=services.tools.offered(who.tenant, agent_id_from(agent_id)))


def _call_route(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)

    @router.post(
        TURN + "/tools/<name>",
        summary="Call a native tool within a turn",
        description='The body is the tool\'s input plus `caller`: {"role": "agent" | "helper" | '
        '"programmatic" | "agent_as_tool", "execution", "invocation"}. Returns {"output": ...}; '
        "a refused call is a 4xx whose message is for the agent, and changes nothing. Every call "
        "is recorded as an execution on the turn. A credential limited to some caller roles "
        "may state only those: another is a 403 memory.forbidden that changes nothing.",
        responses=ERRORS,
        tags=["tools"],
        openapi_extensions=STATES_CALLER,
    )
    def call_tool(
        agent_id: AgentId,
        session_id: SessionId,
        turn_id: TurnId,
        name: ToolName,
        body: ToolBody,
    ) -> ToolCallOut:
        who = caller()
        agent = agent_id_from(agent_id)
        session = services.sessions.reach(who, agent, session_id, write=True)
        who.may_state_caller(body)
        # A token that reaches only the sessions its subject started has the agent's search
        # across sessions read those alone.
        reach = None if who.reads_every_session else who.subject
        output = services.tools.call(session.ref.turn(turn_id), name, body, reach)
        return ToolCallOut(output=output.dump())


def _instructions_route(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)

    @router.get(
        TURN + "/instructions",
        summary="The memory part of the turn's instructions",
        description="Memory rules, harness.memory.instructions, and the pinned records the turn "
        "reads (one line each: summary and id).",
        responses=ERRORS,
        tags=["tools"],
    )
    def instructions(agent_id: AgentId, session_id: SessionId, turn_id: TurnId) -> InstructionsOut:
        who = caller()
        agent = agent_id_from(agent_id)
        session = services.sessions.reach(who, agent, session_id)
        return services.tools.instructions(session.ref.turn(turn_id))


def _recall_route(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)

    @router.post(
        TURN + "/recall",
        summary="Recall the records that best match the turn's context",
        description='Body: {"context": "...", "caller"?: {...}}. Returns the best matching records '
        "(harness.memory.search.max_results), marked as memory: data, never instructions. "
        "Recorded as a search_memory execution with recall: true unless it found nothing or the "
        "same record versions were already recalled in this turn.",
        responses=ERRORS,
        tags=["tools"],
        openapi_extensions=STATES_CALLER,
    )
    def recall(
        agent_id: AgentId,
        session_id: SessionId,
        turn_id: TurnId,
        body: ToolBody,
    ) -> RecallOut:
        who = caller()
        agent = agent_id_from(agent_id)
        session = services.sessions.reach(who, agent, session_id, write=True)
        who.may_state_caller(body, default="agent")  # recall without a caller is the agent's
        args = RecallIn.model_validate(body)
        return services.tools.recall(session.ref.turn(turn_id), args)


def _usage_route(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)

    @router.get(
        "/v1/agents/<agent_id>/usage",
        summary="Model usage of an agent, newest first, with totals",
        description="Each row is one model call: purpose `embed` (an embedding, for search or "
        "indexing), `memory` (a post-turn review's model) or `search` (a rerank of a search's "
        "first hits, with its `latencyMs` and the `documents` it scored).",
        responses=ERRORS,
        tags=["tools"],
    )
    def usage(
        agent_id: AgentId,
        turn_id: Annotated[str | None, Query(alias="turnId")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> UsagePage:
        who = caller()
        who.can_read()
        agent = agent_id_from(agent_id)
        page = services.tools.usage(who.tenant, agent, turn_id, limit, cursor)
        own = OwnSessions(services.store, who, agent)
        return page.model_copy(update={"usage": own.shown(page.usage, "execution_id")})
