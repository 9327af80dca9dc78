"""An agent's entities: `/v1/agents/{agentId}/-/entities`."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from ...domain.agents.entities import EntityPage
from ...services import Services
from ..paths import agent_id_from
from .agents import AgentId, Cursor
from .common import ERRORS, caller_of


def entities_router(services: Services) -> Router:
    router = Router()
    caller = caller_of(router, services.settings)

    @router.get(
        "/v1/agents/<agent_id>/entities",
        summary="List the agent's entities and what mentions them",
        description="The names (people, places, groups, products...) the agent's active live "
        "records, its file memories and the events of its committed live turns mention, read "
        "offline from their text (runs of capitalised words, possessives folded: `Caroline's` "
        "is caroline) and from the speaker an event's metadata names. Each entity has its key "
        "(lower case), how many documents mention it, and its newest `items` mentions: a "
        "record's id, a memory's path, an event's session and event id. In key order, a page "
        "at a time; `query` keeps the keys starting with it.",
        responses=ERRORS,
        tags=["search"],
    )
    def list_entities(
        agent_id: AgentId,
        query: Annotated[
            str | None,
            Query(max_length=256, description="The start of an entity's name (any case)."),
        ] = None,
        limit: Annotated[
            int | None, Query(ge=1, le=100, description="Entities a page, 1-100 (default 20).")
        ] = None,
        items: Annotated[
            int | None,
            Query(ge=0, le=50, description="Mentions listed an entity, 0-50 (default 5)."),
        ] = None,
        cursor: Cursor = None,
    ) -> EntityPage:
        who = caller()
        who.can_read_all_sessions()  # the items include events of every session
        return services.agent_search.entities.list(
            who.tenant, agent_id_from(agent_id), query, limit, cursor, items
        )

    return router
