"""Management API for record memory: list, read, delete, every version, and an app's
approval or rejection of a review's pending writes."""

from __future__ import annotations

import json
import re
from typing import Annotated, Literal

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from pydantic import ConfigDict, Field

from ...domain.kernel.auth import Principal
from ...domain.kernel.deferred import DeferredModel
from ...domain.kernel.durations import parse_instant
from ...domain.kernel.errors import InvalidRequest, NotFound
from ...domain.records.models import Record, RecordQuery, RecordStatus
from ...services import Services
from ..as_of import AsOf, as_of
from ..body_limits import refusal
from ..paths import agent_id_from
from ..schemas import RecordList, RecordVersionList
from .agents import AgentId, Cursor, Limit
from .common import ERRORS, caller_of

RECORDS = "/v1/agents/<agent_id>/records"
_LABEL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
RecordId = Annotated[str, Path(description="The record's id.")]


def _labels(raw: str | None) -> dict[str, str]:
    if not raw:
        return {}
    if refusal(raw) is not None:  # nested past what a parser survives, or not an object
        raise InvalidRequest(
            'labels is a JSON object such as {"customer_id": "c-1"}', code="invalid_labels"
        )
    try:
        labels = json.loads(raw)
    except ValueError as exc:
        raise InvalidRequest(
            'labels is a JSON object such as {"customer_id": "c-1"}', code="invalid_labels"
        ) from exc
    if not isinstance(labels, dict) or not all(
        isinstance(v, str) and _LABEL_NAME.match(k) for k, v in labels.items()
    ):
        raise InvalidRequest(
            "labels maps declared label names (a-z, 0-9, _) to string values",
            code="invalid_labels",
        )
    return labels


class RecordExpiryIn(DeferredModel):
    """When the record expires; null clears it (the record no longer expires)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    expires_at: str | None = Field(
        alias="expiresAt",
        max_length=64,
        description="An ISO 8601 date-time with its offset (2026-01-31T12:00:00Z), or null.",
    )


def records_router(services: Services) -> Router:
    router = Router()
    _listing_route(router, services)
    _record_routes(router, services)
    return router


def _readable(services: Services, who: Principal, agent: str, record_id: str) -> Record:
    """The record, unless it belongs to a session the caller may not reach: then it does not
    exist, as the session does not (a `sessions:own` token of another subject)."""
    record = services.records.get(who.tenant, agent, record_id)
    if record.session_id is not None and not who.reads_every_session:
        try:
            services.sessions.reach(who, agent, record.session_id)
        except NotFound as exc:
            raise NotFound(f"record {record_id!r} does not exist", code="record_not_found") from exc
    return record


def _listing_route(router: Router, services: Services) -> None:
    """The agent's records, listed newest first or ranked by a query."""
    caller = caller_of(router, services.settings)

    @router.get(
        RECORDS,
        summary="List or search an agent's memory records",
        description="Newest first, or ranked by `query`. With `asOf`, the records as they "
        "stood at that instant, from their versions: one superseded, deleted or expired since "
        "shows as it was; one written after it does not exist; expiry is judged at it.",
        responses=ERRORS,
        tags=["records"],
    )
    def list_records(
        agent_id: AgentId,
        query: Annotated[
            str | None, Query(max_length=4096, description="Rank by this text.")
        ] = None,
        kind: Annotated[str | None, Query(description="Comma-separated kinds.")] = None,
        labels: Annotated[str | None, Query(description="JSON object of exact values.")] = None,
        ids: Annotated[str | None, Query(description="Comma-separated record ids.")] = None,
        status: Annotated[
            str | None, Query(description="Comma-separated statuses, or all (default ACTIVE).")
        ] = None,
        scope: Annotated[Literal["session", "agent"] | None, Query()] = None,
        session_id: Annotated[str | None, Query(alias="sessionId")] = None,
        preview: Annotated[Literal["live", "any", "only"], Query()] = "live",
        pinned: Annotated[bool | None, Query()] = None,
        limit: Limit = None,
        cursor: Cursor = None,
        as_of_time: AsOf = None,
    ) -> RecordList:
        who = caller()
        who.can_read()
        at = as_of(as_of_time)
        agent = agent_id_from(agent_id)
        if session_id is not None:
            services.sessions.reach(who, agent, session_id)
        # A caller that reaches only its own sessions lists their records by naming one.
        filters = RecordQuery(
            statuses=_statuses(status),
            kinds=frozenset(_split(kind)),
            labels=_labels(labels),
            ids=frozenset(_split(ids)),
            include_agent=scope in (None, "agent"),
            session_id=session_id if scope in (None, "session") else None,
            include_all_sessions=scope in (None, "session")
            and session_id is None
            and who.reads_every_session,
            preview=preview,
            pinned=pinned,
        )
        page = services.records.list_records(
            who.tenant, agent, filters, query, limit, cursor, as_of=at
        )
        return RecordList(records=page.items, next=page.next)


def _record_routes(router: Router, services: Services) -> None:
    """One record: read it, delete it, list its versions."""
    caller = caller_of(router, services.settings)
    records = services.records

    @router.get(
        RECORDS + "/<record_id>",
        summary="Read a record, whatever its status",
        responses=ERRORS,
        tags=["records"],
    )
    def get_record(agent_id: AgentId, record_id: RecordId) -> Record:
        who = caller()
        who.can_read()
        return _readable(services, who, agent_id_from(agent_id), record_id)

    @router.delete(
        RECORDS + "/<record_id>",
        summary="Delete a record",
        description="Gone from recall and search at once; it and its versions stay readable.",
        responses=ERRORS,
        tags=["records"],
    )
    def delete_record(agent_id: AgentId, record_id: RecordId) -> Record:
        who = caller()
        who.can_write_agents()
        return records.delete(who.tenant, agent_id_from(agent_id), record_id, actor=who.audit_name)

    @router.patch(
        RECORDS + "/<record_id>",
        summary="Set or clear when a record expires",
        description="A new version naming who set it. From `expiresAt` on, the record leaves "
        "recall, search and listings and reads as `EXPIRED` (by id, with its versions); it is "
        "purged with its versions once the tenant's `expiredRetention` has passed after that. "
        "A time already past expires it at once; a later time or null brings an `EXPIRED` "
        "record not yet purged back to `ACTIVE`. A SUPERSEDED or DELETED record is a 409.",
        responses=ERRORS,
        tags=["records"],
    )
    def set_record_expiry(
        agent_id: AgentId, record_id: RecordId, body: Annotated[RecordExpiryIn, Body()]
    ) -> Record:
        who = caller()
        who.can_write_agents()
        expires_at = None
        if body.expires_at is not None:
            try:
                expires_at = parse_instant(body.expires_at)
            except ValueError as exc:
                raise InvalidRequest(f"expiresAt: {exc}", code="invalid_expires_at") from exc
        agent = agent_id_from(agent_id)
        _readable(services, who, agent, record_id)
        return records.set_expiry(who.tenant, agent, record_id, expires_at, actor=who.audit_name)

    @router.post(
        RECORDS + "/<record_id>/approve",
        summary="Approve a review's pending write",
        description="Applies what the PENDING record proposes (add, replace or delete) against "
        "the memory as it is now: 409 proposal_stale when the record it replaces or deletes "
        "changed since, 409 proposal_restates when an active memory already says it, 409 "
        "record_not_pending unless it is PENDING; a refused approval leaves it PENDING. An app's "
        "credential only (agents:write, not bound to the agent role).",
        responses=ERRORS,
        tags=["records"],
    )
    def approve_record(agent_id: AgentId, record_id: RecordId) -> Record:
        who = caller()
        who.can_decide_proposals()
        agent = agent_id_from(agent_id)
        return services.proposals.approve(who.tenant, agent, record_id, actor=who.audit_name)

    @router.post(
        RECORDS + "/<record_id>/reject",
        summary="Reject a review's pending write",
        description="Marks the PENDING record REJECTED (a new version naming who rejected it); "
        "nothing it proposes is applied. 409 record_not_pending unless it is PENDING.",
        responses=ERRORS,
        tags=["records"],
    )
    def reject_record(agent_id: AgentId, record_id: RecordId) -> Record:
        who = caller()
        who.can_decide_proposals()
        agent = agent_id_from(agent_id)
        return services.proposals.reject(who.tenant, agent, record_id, actor=who.audit_name)

    @router.get(
        RECORDS + "/<record_id>/versions",
        summary="Every version, newest first",
        responses=ERRORS,
        tags=["records"],
    )
    def record_versions(
        agent_id: AgentId, record_id: RecordId, limit: Limit = None, cursor: Cursor = None
    ) -> RecordVersionList:
        who = caller()
        who.can_read()
        agent = agent_id_from(agent_id)
        _readable(services, who, agent, record_id)
        page = records.versions(who.tenant, agent, record_id, limit, cursor)
        return RecordVersionList(versions=page.items, next=page.next)


def _split(raw: str | None) -> list[str]:
    return [part.strip() for part in (raw or "").split(",") if part.strip()]


def _statuses(raw: str | None) -> frozenset[RecordStatus]:
    if raw is None:
        return frozenset({RecordStatus.ACTIVE})
    if raw == "all":
        return frozenset(RecordStatus)
    try:
        return frozenset(RecordStatus(s) for s in _split(raw))
    except ValueError as exc:
        raise InvalidRequest(
            "status is ACTIVE, SUPERSEDED, DELETED, EXPIRED, PENDING, REJECTED (comma-separated) or all",
            code="invalid_status",
        ) from exc
