"""Sessions and turns: `/v1/agents/{agentId}/-/sessions/...`."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from ...domain.kernel.models import Session, Turn
from ...services import Services
from ..answers import TurnWithWrites
from ..paths import agent_id_from
from ..schemas import BeginTurnIn, CreateSessionIn, SessionList, TurnList
from .agents import AgentId, Cursor, Limit
from .common import ERRORS, caller_of, created, created_responses

SessionId = Annotated[str, Path(description="The session's id.")]
TurnId = Annotated[str, Path(description="The turn's id.")]
SESSIONS = "/v1/agents/<agent_id>/sessions"
TURN = SESSIONS + "/<session_id>/turns/<turn_id>"


def sessions_router(services: Services) -> Router:
    router = Router()
    _session_routes(router, services)
    _turn_routes(router, services)
    _one_turn_routes(router, services)
    return router


def _session_routes(router: Router, services: Services) -> None:
    """Start, list and read sessions."""
    caller = caller_of(router, services.settings)
    sessions = services.sessions

    @router.post(
        SESSIONS,
        summary="Start a session",
        responses=created_responses(Session),
        tags=["sessions"],
    )
    def create_session(
        agent_id: AgentId, body: Annotated[CreateSessionIn | None, Body()] = None
    ) -> Response[Session]:
        who = caller()
        who.can_run_sessions()
        body = body or CreateSessionIn()
        if body.id is not None:
            who.can_name_session()
        return created(
            sessions.create(
                who.tenant, agent_id_from(agent_id), body.id, body.metadata, owner=who.subject
            )
        )

    @router.get(
        SESSIONS, summary="List sessions, oldest first", responses=ERRORS, tags=["sessions"]
    )
    def list_sessions(agent_id: AgentId, limit: Limit = None, cursor: Cursor = None) -> SessionList:
        who = caller()
        who.can_read_all_sessions()
        page = sessions.list_sessions(who.tenant, agent_id_from(agent_id), limit, cursor)
        return SessionList(sessions=page.items, next=page.next)

    @router.get(
        SESSIONS + "/<session_id>", summary="Get a session", responses=ERRORS, tags=["sessions"]
    )
    def get_session(agent_id: AgentId, session_id: SessionId) -> Session:
        return sessions.reach(caller(), agent_id_from(agent_id), session_id)


def _turn_routes(router: Router, services: Services) -> None:
    """List a session's turns and begin the next."""
    caller = caller_of(router, services.settings)
    sessions = services.sessions

    @router.get(
        SESSIONS + "/<session_id>/turns",
        summary="List the session's turns, in order",
        responses=ERRORS,
        tags=["turns"],
    )
    def list_turns(
        agent_id: AgentId, session_id: SessionId, limit: Limit = None, cursor: Cursor = None
    ) -> TurnList:
        who = caller()
        agent = agent_id_from(agent_id)
        session = sessions.reach(who, agent, session_id)
        page = sessions.list_turns(session.ref, limit, cursor)
        return TurnList(turns=page.items, next=page.next)

    @router.post(
        SESSIONS + "/<session_id>/turns",
        summary="Begin the session's next turn",
        description="The turn runs the agent's current manifest version; sequences are "
        "gap-free per session.",
        responses=created_responses(Turn),
        tags=["turns"],
    )
    def begin_turn(
        agent_id: AgentId,
        session_id: SessionId,
        body: Annotated[BeginTurnIn | None, Body()] = None,
    ) -> Response[Turn]:
        who = caller()
        agent = agent_id_from(agent_id)
        sessions.reach(who, agent, session_id, write=True)
        body = body or BeginTurnIn()
        return created(
            sessions.begin_turn(
                who.tenant,
                agent,
                session_id,
                preview=body.preview,
                replay_of=body.replay_of,
                started_by=body.started_by,
                trigger_run_id=body.trigger_run_id,
                turn_id=body.id,
            )
        )


def _one_turn_routes(router: Router, services: Services) -> None:
    """One turn: read it, end it (commit or roll back), run its failed review again."""
    caller = caller_of(router, services.settings)
    sessions = services.sessions

    @router.get(
        TURN,
        summary="Get a turn with the memories it wrote and its executions",
        responses=ERRORS,
        tags=["turns"],
    )
    def get_turn(agent_id: AgentId, session_id: SessionId, turn_id: TurnId) -> TurnWithWrites:
        who = caller()
        agent = agent_id_from(agent_id)
        session = sessions.reach(who, agent, session_id)
        return services.tools.turn_detail(session.ref.turn(turn_id))

    @router.post(TURN + "/commit", summary="Commit a turn", responses=ERRORS, tags=["turns"])
    def commit_turn(agent_id: AgentId, session_id: SessionId, turn_id: TurnId) -> Turn:
        who = caller()
        agent = agent_id_from(agent_id)
        session = sessions.reach(who, agent, session_id, write=True)
        return sessions.commit(session.ref.turn(turn_id))

    @router.post(TURN + "/rollback", summary="Roll a turn back", responses=ERRORS, tags=["turns"])
    def rollback_turn(agent_id: AgentId, session_id: SessionId, turn_id: TurnId) -> Turn:
        who = caller()
        agent = agent_id_from(agent_id)
        session = sessions.reach(who, agent, session_id, write=True)
        return sessions.rollback(session.ref.turn(turn_id))

    @router.post(
        TURN + "/extraction",
        summary="Run a turn's failed post-turn review again",
        description="Queues the review again (a new run; in the cloud a new execution). 409 "
        "extraction_not_failed unless the review failed.",
        responses=ERRORS,
        tags=["turns"],
    )
    def rerun_extraction(agent_id: AgentId, session_id: SessionId, turn_id: TurnId) -> Turn:
        who = caller()
        agent = agent_id_from(agent_id)
        session = sessions.reach(who, agent, session_id, write=True)
        return sessions.rerun_extraction(session.ref.turn(turn_id))
