"""Session history: append a turn's events, page through them, export a whole session."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from ...domain.history.service import AppendIn
from ...domain.kernel.errors import InvalidRequest
from ...services import Services
from ..answers import AppendOut, DescribedBy, HistoryPage, HistorySearchPage, JsonObject
from ..paths import agent_id_from
from .agents import AgentId, Cursor, Limit
from .common import ERRORS, caller_of
from .sessions import SESSIONS, TURN, SessionId, TurnId

ROLES = {"user", "assistant", "tool_result", "error"}


# Turn sequences are counted from 1; a bound past any turn a session can hold is a typo.
MAX_TURN = 10**9
# The document names the events a body holds; the service checks them (a bad batch is its own
# 400 invalid_events, not the resolver's invalid_request).
AppendBody = Annotated[JsonObject, DescribedBy(AppendIn), Body()]


def history_router(services: Services) -> Router:
    router = Router()
    _append_route(router, services)
    _page_route(router, services)
    _search_route(router, services)
    _export_route(router, services)
    return router


def _append_route(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)

    @router.post(
        TURN + "/events",
        summary="Append a batch of the turn's events",
        description='Body {"events": [{"role": "user" | "assistant" | "tool_result" | "error", '
        '"text", "tool_name", "call_id", "tool_calls": [{"name", "call_id"}], "execution_id", '
        '"sequence", "time", "metadata"}]}. What harness.history.index keeps is searchable once '
        "the turn commits; a rolled-back turn's events never are. Idempotent by (turn, "
        "sequence).",
        responses=ERRORS,
        tags=["history"],
    )
    def append(
        agent_id: AgentId,
        session_id: SessionId,
        turn_id: TurnId,
        body: AppendBody,
    ) -> AppendOut:
        who = caller()
        agent = agent_id_from(agent_id)
        session = services.sessions.reach(who, agent, session_id, write=True)
        batch = AppendIn.parse(body)
        return services.history.append(session.ref.turn(turn_id), batch)


def _page_route(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)

    @router.get(
        SESSIONS + "/<session_id>/history",
        summary="Kept events of committed turns",
        responses=ERRORS,
        tags=["history"],
    )
    def page(
        agent_id: AgentId,
        session_id: SessionId,
        from_turn: Annotated[int | None, Query(alias="fromTurn", ge=0, le=MAX_TURN)] = None,
        to_turn: Annotated[int | None, Query(alias="toTurn", ge=0, le=MAX_TURN)] = None,
        role: Annotated[str | None, Query(description="Comma-separated roles.")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> HistoryPage:
        who = caller()
        agent = agent_id_from(agent_id)
        services.sessions.reach(who, agent, session_id)
        roles = {r.strip() for r in (role or "").split(",") if r.strip()}
        if roles - ROLES:
            raise InvalidRequest(f"role is one of {', '.join(sorted(ROLES))}", code="invalid_role")
        return services.history.page(
            who.tenant, agent, session_id, from_turn, to_turn, roles, limit, cursor
        )


def _search_route(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)

    @router.get(
        "/v1/agents/<agent_id>/history",
        summary="Search the agent's history across its sessions",
        description="Events of committed live turns ranked by the query as search_history "
        "ranks them (the agent's harness.memory.search), best first; each result names its "
        "session and turn, one result an event (its best part). `sessionId` keeps one session; "
        "`fromTime` and `toTime` (ISO 8601, UTC when no zone is given) keep events whose time "
        "lies between them. Pages with `next`; the query's embedding is usage on the agent.",
        responses=ERRORS,
        tags=["history"],
    )
    def search(
        agent_id: AgentId,
        query: Annotated[str, Query(min_length=1, max_length=4096)],
        session_id: Annotated[str | None, Query(alias="sessionId", max_length=128)] = None,
        from_time: Annotated[str | None, Query(alias="fromTime", max_length=64)] = None,
        to_time: Annotated[str | None, Query(alias="toTime", max_length=64)] = None,
        limit: Annotated[int | None, Query(ge=1, le=50, description="1-50 (default 10).")] = None,
        cursor: Cursor = None,
    ) -> HistorySearchPage:
        who = caller()
        who.can_read_all_sessions()
        return services.history_search.search_agent(
            who.tenant,
            agent_id_from(agent_id),
            query,
            session_id,
            _moment(from_time, "fromTime"),
            _moment(to_time, "toTime"),
            limit or 10,
            cursor,
        )


def _export_route(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)

    @router.get(
        SESSIONS + "/<session_id>/export",
        summary="The whole session as JSON Lines",
        responses=ERRORS,
        tags=["history"],
    )
    def export(agent_id: AgentId, session_id: SessionId) -> Response[str]:
        who = caller()
        agent = agent_id_from(agent_id)
        services.sessions.reach(who, agent, session_id)
        turns = services.store.list_turns(who.tenant, agent, session_id)
        body = services.history.export(who.tenant, agent, session_id, turns)
        return Response(200, "application/x-ndjson", body)


def _moment(raw: str | None, name: str) -> datetime | None:
    """An ISO 8601 time of a query string; one without a zone is UTC."""
    if raw is None:
        return None
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError as exc:
        raise InvalidRequest(
            f"{name} is an ISO 8601 time such as 2024-05-01T00:00:00Z", code="invalid_time"
        ) from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
