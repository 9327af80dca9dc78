"""Moving an agent out and in: `GET /v1/agents/{agentId}/-/export`, its bundle items a page at a
time, and `POST /v1/agents/{agentId}/-/import`, a batch of them written as they were. Both take
the admin scope, with an app's credential: an export reads every session, and an import writes
history no turn of the caller made."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from pydantic import ConfigDict, Field

from ...domain.kernel.auth import ALL_ROLES, Principal
from ...domain.kernel.deferred import DeferredModel
from ...domain.kernel.errors import Forbidden
from ...domain.transfer import BUNDLE_FORMAT, BUNDLE_VERSION, ITEMS_PER_REQUEST
from ...services import Services
from ..paths import agent_id_from
from .agents import AgentId, Cursor
from .common import ERRORS, caller_of

EXPORT = "/v1/agents/<agent_id>/export"
IMPORT = "/v1/agents/<agent_id>/import"
DEFAULT_ITEMS = 100


class ExportOut(DeferredModel):
    format: str = Field(description=f"Always `{BUNDLE_FORMAT}`.")
    version: int = Field(description="The bundle format's version.")
    model_id: str | None = Field(
        serialization_alias="modelId",
        description="The model this service embeds with (the items' vectors name their own).",
    )
    items: list[dict[str, Any]] = Field(description="Bundle items, in the order to import them.")
    next: str | None = Field(description="The cursor of the next page; null on the last.")


class ImportIn(DeferredModel):
    model_config = ConfigDict(extra="forbid")

    items: list[dict[str, Any]] = Field(
        min_length=1,
        max_length=ITEMS_PER_REQUEST,
        description="Bundle items of this agent, in the bundle's order (docs/export-import.md).",
    )


class ImportOut(DeferredModel):
    written: int = Field(description="Items written by this request.")
    kept: int = Field(description="Items stored already: nothing changed for them.")
    vectors_reused: int = Field(
        serialization_alias="vectorsReused",
        description="Search documents given the bundle's vector (same model as this service).",
    )
    vectors_queued: int = Field(
        serialization_alias="vectorsQueued",
        description="Search documents queued to be embedded with this service's model.",
    )


def _may_transfer(who: Principal) -> None:
    """Admin scope, and not a credential an agent runs its turns with (one bound to the agent
    role): an agent neither reads out every session nor writes history in."""
    who.can_administer()
    if who.roles != ALL_ROLES and "agent" in who.roles:
        raise Forbidden(
            "export and import take an app's credential with the admin scope, not one bound "
            "to the agent role",
            code="transfer_forbidden",
        )


def transfer_router(services: Services) -> Router:
    router = Router()
    caller = caller_of(router, services.settings)

    @router.get(
        EXPORT,
        summary="Read an agent out as bundle items, a page at a time",
        description="Its manifest versions, records and file memories with every version, "
        "sessions, turns with their executions and history events, and the embeddings the "
        "search index holds for them with their model. Takes the admin scope (not a "
        "credential bound to the agent role). A page ends at `limit` items or about 3 MB.",
        responses=ERRORS,
        tags=["transfer"],
    )
    def export_agent(
        agent_id: AgentId,
        limit: Annotated[
            int | None, Query(ge=1, le=ITEMS_PER_REQUEST, description="Items a page, 1-500.")
        ] = None,
        cursor: Cursor = None,
    ) -> ExportOut:
        who = caller()
        _may_transfer(who)
        exports = services.transfer.exports
        page = exports.page(who.tenant, agent_id_from(agent_id), cursor, limit or DEFAULT_ITEMS)
        return ExportOut(
            format=BUNDLE_FORMAT,
            version=BUNDLE_VERSION,
            model_id=page.model_id,
            items=page.items,
            next=page.next,
        )

    @router.post(
        IMPORT,
        summary="Write a batch of an agent's bundle items, as they were",
        description="Items of this agent in the bundle's order (its agent item first); at most "
        "500. Ids, versions, timestamps and provenance are kept. Every item is checked before "
        "any is written (a bad one: 400, nothing changed); an item stored already is kept "
        "(sending a batch again changes nothing). An agent of that id not made by an import "
        "of this bundle: 409 `agent_exists`. Takes the admin scope (not a credential bound to "
        "the agent role).",
        responses=ERRORS,
        tags=["transfer"],
    )
    def import_agent(agent_id: AgentId, body: Annotated[ImportIn, Body()]) -> ImportOut:
        who = caller()
        _may_transfer(who)
        result = services.transfer.imports.apply(who.tenant, agent_id_from(agent_id), body.items)
        return ImportOut(
            written=result.written,
            kept=result.kept,
            vectors_reused=result.vectors_reused,
            vectors_queued=result.vectors_queued,
        )

    return router
