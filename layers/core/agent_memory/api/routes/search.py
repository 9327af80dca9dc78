"""One search over everything an agent knows: records, file memories and history."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from ...domain.agents.search import parse_types
from ...services import Services
from ..answers import SearchHits
from ..as_of import AsOf, as_of
from ..paths import agent_id_from
from .agents import AgentId
from .common import ERRORS, caller_of


def search_router(services: Services) -> Router:
    router = Router()
    caller = caller_of(router, services.settings)

    @router.get(
        "/v1/agents/<agent_id>/search",
        summary="Search the agent's records, file memories and history at once",
        description="One ranked list, best first, of the agent's active live records, its file "
        "memories and the events of its committed live turns (one result an event: its best "
        "part), ranked as the agent's harness.memory.search says. Each hit has a `type` "
        "(record | memory | history), its `score`, and what reading it needs: a record's id and "
        "version, a memory's path and version, an event's session, turn and event id. The "
        "query's embedding is usage on the agent. With `asOf`, what the agent knew at that "
        "instant: records and memories as they stood then (ranked by today's index: their "
        "text), events of turns committed by then.",
        responses=ERRORS,
        tags=["search"],
    )
    def search(
        agent_id: AgentId,
        query: Annotated[str, Query(min_length=1, max_length=4096)],
        types: Annotated[
            str | None,
            Query(max_length=64, description="Comma-separated: records, memories, history."),
        ] = None,
        limit: Annotated[int | None, Query(ge=1, le=50, description="1-50 (default 10).")] = None,
        as_of_time: AsOf = None,
    ) -> SearchHits:
        who = caller()
        who.can_read()
        at = as_of(as_of_time)
        wanted = parse_types(types)
        if types is None and not who.reads_every_session:
            # A token reaching only its own sessions searches what is agent-wide.
            wanted = [t for t in wanted if t != "history"]
        if "history" in wanted:
            who.can_read_all_sessions()
        return services.agent_search.search(
            who.tenant,
            agent_id_from(agent_id),
            query,
            wanted,
            limit or 10,
            every_session=who.reads_every_session,
            as_of=at,
        )

    return router
