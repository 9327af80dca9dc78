"""Turns of an agent without a session: `/v1/agents/{agentId}/-/turns/...`.

A trigger or a wake runs the agent with no session. Only an agent whose manifest reads and
writes agent scope alone may (409 session_required otherwise, saying so). The turn's routes
are a session turn's, without the session: begin, read, commit, roll back, its tools, recall,
instructions and events; each calls the same service as its session form, in the agent's
reserved session (domain/sessions/agent_turns.py). The agent's own turns are no subject's
session: running them needs agents:write, reading them agents:read.
"""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from ...domain.history.service import AppendIn
from ...domain.kernel.auth import Principal
from ...domain.kernel.models import AGENT_SESSION, Turn
from ...domain.kernel.where import SessionRef
from ...domain.tools.io import InstructionsOut, RecallIn, RecallOut
from ...services import Services
from ..answers import AppendOut, ToolCallOut, TurnWithWrites
from ..paths import agent_id_from
from ..schemas import BeginTurnIn, TurnList
from .agents import AgentId, Cursor, Limit
from .common import ERRORS, caller_of, created, created_responses
from .history import AppendBody
from .sessions import TurnId
from .tools import STATES_CALLER, ToolBody, ToolName

TURNS = "/v1/agents/<agent_id>/turns"
TURN = TURNS + "/<turn_id>"


def agent_turns_router(services: Services) -> Router:
    router = Router()
    _begin_routes(router, services)
    _end_routes(router, services)
    _tool_routes(router, services)
    return router


def _reach(services: Services, who: Principal, raw_agent: str, *, write: bool) -> SessionRef:
    """The agent's reserved session of sessionless turns, when `who` may run (`write`) or read
    its sessionless turns."""
    if write:
        who.can_write_agents()
    else:
        who.can_read_all_sessions()
    agent = agent_id_from(raw_agent)
    services.sessions.agent(who.tenant, agent)
    return SessionRef(who.tenant, agent, AGENT_SESSION)


def _begin_routes(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)
    sessions = services.sessions

    @router.post(
        TURNS,
        summary="Begin a turn of the agent without a session",
        description="For triggers and wakes (`started_by`). Only an agent whose "
        'harness.memory.scope.read and scope.write are both ["agent"]: otherwise 409 '
        "session_required. The turn has no session: it writes agent scope, has no history to "
        "search, and its sequence counts the agent's sessionless turns.",
        responses=created_responses(Turn),
        tags=["turns"],
    )
    def begin_agent_turn(
        agent_id: AgentId, body: Annotated[BeginTurnIn | None, Body()] = None
    ) -> Response[Turn]:
        who = caller()
        own = _reach(services, who, agent_id, write=True)
        body = body or BeginTurnIn()
        return created(
            sessions.begin_turn(
                own.tenant,
                own.agent_id,
                None,
                preview=body.preview,
                replay_of=body.replay_of,
                started_by=body.started_by,
                trigger_run_id=body.trigger_run_id,
                turn_id=body.id,
            )
        )

    @router.get(
        TURNS,
        summary="List the agent's turns without a session, in order",
        responses=ERRORS,
        tags=["turns"],
    )
    def list_agent_turns(agent_id: AgentId, limit: Limit = None, cursor: Cursor = None) -> TurnList:
        who = caller()
        own = _reach(services, who, agent_id, write=False)
        if services.store.get_session(own.tenant, own.agent_id, own.session_id) is None:
            return TurnList(turns=[], next=None)
        page = sessions.list_turns(own, limit, cursor)
        return TurnList(turns=page.items, next=page.next)

    @router.get(
        TURN,
        summary="Get a turn without a session, with the memories it wrote and its executions",
        responses=ERRORS,
        tags=["turns"],
    )
    def get_agent_turn(agent_id: AgentId, turn_id: TurnId) -> TurnWithWrites:
        who = caller()
        own = _reach(services, who, agent_id, write=False)
        return services.tools.turn_detail(own.turn(turn_id))


def _end_routes(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)
    sessions = services.sessions

    @router.post(
        TURN + "/commit",
        summary="Commit a turn without a session",
        responses=ERRORS,
        tags=["turns"],
    )
    def commit_agent_turn(agent_id: AgentId, turn_id: TurnId) -> Turn:
        who = caller()
        own = _reach(services, who, agent_id, write=True)
        return sessions.commit(own.turn(turn_id))

    @router.post(
        TURN + "/rollback",
        summary="Roll back a turn without a session",
        responses=ERRORS,
        tags=["turns"],
    )
    def rollback_agent_turn(agent_id: AgentId, turn_id: TurnId) -> Turn:
        who = caller()
        own = _reach(services, who, agent_id, write=True)
        return sessions.rollback(own.turn(turn_id))

    @router.post(
        TURN + "/events",
        summary="Append a batch of a turn's events (without a session)",
        description="As a session turn's events, but never searchable as history (an agent "
        "without sessions has none): they are kept for the turn's post-turn review only.",
        responses=ERRORS,
        tags=["history"],
    )
    def append_agent_events(agent_id: AgentId, turn_id: TurnId, body: AppendBody) -> AppendOut:
        who = caller()
        own = _reach(services, who, agent_id, write=True)
        batch = AppendIn.parse(body)
        return services.history.append(own.turn(turn_id), batch)


def _tool_routes(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)

    @router.post(
        TURN + "/tools/<name>",
        summary="Call a native tool within a turn without a session",
        description="As within a session turn. search_history is not offered: a turn without a "
        "session has no history.",
        responses=ERRORS,
        tags=["tools"],
        openapi_extensions=STATES_CALLER,
    )
    def call_agent_tool(
        agent_id: AgentId, turn_id: TurnId, name: ToolName, body: ToolBody
    ) -> ToolCallOut:
        who = caller()
        own = _reach(services, who, agent_id, write=True)
        who.may_state_caller(body)
        output = services.tools.call(own.turn(turn_id), name, body)
        return ToolCallOut(output=output.dump())

    @router.get(
        TURN + "/instructions",
        summary="The memory part of a sessionless turn's instructions",
        responses=ERRORS,
        tags=["tools"],
    )
    def agent_turn_instructions(agent_id: AgentId, turn_id: TurnId) -> InstructionsOut:
        who = caller()
        own = _reach(services, who, agent_id, write=False)
        return services.tools.instructions(own.turn(turn_id))

    @router.post(
        TURN + "/recall",
        summary="Recall the records that best match a sessionless turn's context",
        responses=ERRORS,
        tags=["tools"],
        openapi_extensions=STATES_CALLER,
    )
    def agent_turn_recall(agent_id: AgentId, turn_id: TurnId, body: ToolBody) -> RecallOut:
        who = caller()
        own = _reach(services, who, agent_id, write=True)
        who.may_state_caller(body, default="agent")
        args = RecallIn.model_validate(body)
        return services.tools.recall(own.turn(turn_id), args)
