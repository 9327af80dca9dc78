"""The caller's tenant: `/v1/tenant/limits`, the runtime limits its admin sets, and
`DELETE /v1/tenant`, the reset that deletes every agent of it and takes its limits back to the
deployment's, and `DELETE /v1/tenant/agents`, the reset of its agents alone."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from pydantic import ConfigDict, Field, StrictInt

from ...domain.agents.service import TenantReset
from ...domain.files.service import FileLimits
from ...domain.kernel.deferred import DeferredModel
from ...services import Services
from ..answers import TenantLimitsOut
from .common import ERRORS, caller_of

LIMITS = "/v1/tenant/limits"
TENANT = "/v1/tenant"
# Inside the API's 29 s (Lambda and API Gateway): the rest is done by asking again.
RESET_SECONDS = 20.0


class TenantLimitsIn(DeferredModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    memory_bytes: StrictInt | None = Field(
        default=None, alias="memoryBytes", description="Bytes a memory may hold (1-262144)."
    )
    memories_per_agent: StrictInt | None = Field(
        default=None,
        alias="memoriesPerAgent",
        description="Memories an agent may keep (1-1000000).",
    )
    expired_retention: str | None = Field(
        default=None,
        alias="expiredRetention",
        max_length=64,
        description="How long an expired record stays readable before it is purged with its "
        "versions: an ISO 8601 duration of weeks, days, hours, minutes or seconds (P30D by "
        "default). Applies to expiries set from then on.",
    )


def _limits(limits: FileLimits) -> TenantLimitsOut:
    return TenantLimitsOut(
        memory_bytes=limits.memory_bytes,
        memories_per_agent=limits.memories_per_agent,
        index_lines=limits.index_lines,
        index_bytes=limits.index_bytes,
        expired_retention=limits.expired_retention,
    )


def tenant_router(services: Services) -> Router:
    router = Router()
    caller = caller_of(router, services.settings)
    files = services.files

    @router.get(
        LIMITS,
        summary="The limits that hold for the caller's tenant",
        responses=ERRORS,
        tags=["tenant"],
    )
    def get_limits() -> TenantLimitsOut:
        who = caller()
        who.can_read()
        return _limits(files.limits_for(who.tenant))

    @router.put(
        LIMITS,
        summary="Set the tenant's memoryBytes, memoriesPerAgent and expiredRetention",
        description="Fields left out keep their value. Takes the admin scope. Memories already over a lowered limit stay; the next write that would "
        "pass it is refused.",
        responses=ERRORS,
        tags=["tenant"],
    )
    def put_limits(body: Annotated[TenantLimitsIn, Body()]) -> TenantLimitsOut:
        who = caller()
        who.can_administer()
        return _limits(
            files.set_tenant_limits(
                who.tenant, body.memory_bytes, body.memories_per_agent, body.expired_retention
            )
        )

    @router.delete(
        TENANT,
        summary="Reset the tenant: delete every agent with everything it owns",
        description="`confirm` must be the tenant's name (else 400 confirmation_mismatch). "
        "Deletes every agent with its records, memories, history, versions and usage, then "
        "takes the tenant's limits back to the deployment's (`limitsReset`); the audit trail "
        "and the tokens stay (`DELETE /v1/tenant/agents` keeps the limits too). Works for up to about 20 seconds and answers "
        "`done: false` when agents are left: ask again (a reset cut short, even mid-agent, is "
        "finished by the next). Takes the admin scope; audited.",
        responses=ERRORS,
        tags=["tenant"],
    )
    def reset(
        confirm: Annotated[str, Query(description="The tenant's name.", max_length=64)],
    ) -> TenantReset:
        return services.agents.reset_tenant(caller(), confirm, RESET_SECONDS)

    @router.delete(
        TENANT + "/agents",
        summary="Reset the tenant's agents: delete every agent with everything it owns",
        description="As `DELETE /v1/tenant`, but only the agents: the limits stay as the "
        "tenant's admin set them (and, as with every reset, the audit trail and the tokens). "
        "`confirm` must be the tenant's name; answers `done: false` while agents are left: "
        "ask again. Takes the admin scope; audited.",
        responses=ERRORS,
        tags=["tenant"],
    )
    def reset_agents(
        confirm: Annotated[str, Query(description="The tenant's name.", max_length=64)],
    ) -> TenantReset:
        return services.agents.reset_tenant(caller(), confirm, RESET_SECONDS, agents_only=True)

    return router
