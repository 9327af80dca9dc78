"""`POST /v1/agents/{agentId}/-/consolidate`: consolidate an agent's record memory (or, with
`dryRun`, only plan it); `GET .../-/consolidations`: the runs kept, newest first."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from ...domain.extraction.consolidation import ConsolidationService
from ...domain.extraction.consolidation_models import ConsolidationRun
from ...domain.kernel.deferred import DeferredModel
from ...domain.kernel.errors import NotFound
from ...services import Services
from ..paths import agent_id_from
from .agents import AgentId, Cursor, Limit
from .common import ERRORS, caller_of

CONSOLIDATE = "/v1/agents/<agent_id>/consolidate"
CONSOLIDATIONS = "/v1/agents/<agent_id>/consolidations"


class ConsolidationList(DeferredModel):
    consolidations: list[ConsolidationRun]
    next: str | None = None


def consolidation_router(services: Services) -> Router:
    router = Router()
    caller = caller_of(router, services.settings)

    def service() -> ConsolidationService:
        if services.consolidation is None:  # every composition builds one; a test may not
            raise NotFound("consolidation is not available here", code="not_available")
        return services.consolidation

    @router.post(
        CONSOLIDATE,
        summary="Consolidate the agent's record memory",
        description="Reviews every ACTIVE record of the agent (agent-scope records together, "
        "each session's session-scope records together): twins are merged into the most "
        "complete of them (the others SUPERSEDED, `replacedBy` naming it), a single-valued "
        "attribute given two values keeps the newer (the older SUPERSEDED), events older than "
        "their lifetime (`consolidation.stale_after`, else `expire_after.event`) expire now, and "
        "pins beyond `pinned.max_tokens` are unpinned, oldest first. A record changed while "
        "the run works is left alone (`skipped`). With `dryRun=true` the plan is returned and "
        "nothing is written or kept. Each run is kept (`GET .../-/consolidations`) and what it "
        "changed is announced as one `agent.memory_updated`.",
        responses=ERRORS,
        tags=["records"],
    )
    def consolidate(
        agent_id: AgentId,
        dry_run: Annotated[
            bool, Query(alias="dryRun", description="Only plan: change and keep nothing.")
        ] = False,
    ) -> ConsolidationRun:
        who = caller()
        who.can_write_agents()
        return service().consolidate(
            who.tenant, agent_id_from(agent_id), actor=who.audit_name, dry_run=dry_run
        )

    @router.get(
        CONSOLIDATIONS,
        summary="The agent's consolidation runs, newest first",
        responses=ERRORS,
        tags=["records"],
    )
    def list_consolidations(
        agent_id: AgentId, limit: Limit = None, cursor: Cursor = None
    ) -> ConsolidationList:
        who = caller()
        who.can_read()
        page = service().runs(who.tenant, agent_id_from(agent_id), limit, cursor)
        return ConsolidationList(consolidations=page.items, next=page.next)

    return router
