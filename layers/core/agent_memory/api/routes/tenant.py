"""The caller's tenant: `/v1/tenant/limits`, the runtime limits its admin sets."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from ...bootstrap import Services
from ...domain.services.files import FileLimits
from .common import ERRORS, caller_of

LIMITS = "/v1/tenant/limits"


class TenantLimitsIn(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    memory_bytes: StrictInt | None = Field(
        default=None, alias="memoryBytes", description="Bytes a memory may hold (1-262144)."
    )
    memories_per_agent: StrictInt | None = Field(
        default=None,
        alias="memoriesPerAgent",
        description="Memories an agent may keep (1-1000000).",
    )


def _limits(limits: FileLimits) -> dict[str, Any]:
    return {
        "memoryBytes": limits.memory_bytes,
        "memoriesPerAgent": limits.memories_per_agent,
        "memoryIndexLines": limits.index_lines,
        "memoryIndexBytes": limits.index_bytes,
    }


def tenant_router(services: Services) -> Router:
    router = Router()
    caller = caller_of(router, services.settings.tenant_claim)
    files = services.files

    @router.get(
        LIMITS,
        summary="The limits that hold for the caller's tenant",
        responses=ERRORS,
        tags=["tenant"],
    )
    def get_limits() -> dict[str, Any]:
        who = caller()
        who.can_read()
        return _limits(files.limits_for(who.tenant))

    @router.put(
        LIMITS,
        summary="Set the tenant's memoryBytes and memoriesPerAgent",
        description="Fields left out keep their value. There is no admin scope yet: this takes "
        "agents:write. Memories already over a lowered limit stay; the next write that would "
        "pass it is refused.",
        responses=ERRORS,
        tags=["tenant"],
    )
    def put_limits(body: Annotated[TenantLimitsIn, Body()]) -> dict[str, Any]:
        who = caller()
        who.can_write_agents()
        return _limits(
            files.set_tenant_limits(who.tenant, body.memory_bytes, body.memories_per_agent)
        )

    return router
