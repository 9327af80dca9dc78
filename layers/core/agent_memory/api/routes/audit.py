"""`GET /v1/audit`: the tenant's audit trail, for its admin."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from ...domain.audit.models import AuditEntry
from ...domain.kernel.deferred import DeferredModel
from ...services import Services
from .agents import Cursor, Limit
from .common import ERRORS, caller_of

AUDIT = "/v1/audit"


class AuditList(DeferredModel):
    entries: list[AuditEntry]
    next: str | None = None


def audit_router(services: Services) -> Router:
    router = Router()
    caller = caller_of(router, services.settings)

    @router.get(
        AUDIT,
        summary="Every change made in the tenant, oldest first",
        description="Each entry: id, at, actor (`api:<token id>` embedded, `api:<JWT subject>` "
        "in the cloud), method, route, agentId, target, status. Filter by agentId, actor "
        "(as listed) and since (an ISO 8601 time with a zone). Takes the admin scope.",
        responses=ERRORS,
        tags=["tenant"],
    )
    def list_audit(
        agent_id: Annotated[str | None, Query(alias="agentId", max_length=256)] = None,
        actor: Annotated[str | None, Query(max_length=256)] = None,
        since: Annotated[datetime | None, Query()] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> AuditList:
        found = services.audit.list(caller(), agent_id, actor, since, limit, cursor)
        return AuditList(entries=found.items, next=found.next)

    return router
