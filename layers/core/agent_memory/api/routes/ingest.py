"""Bulk ingestion over HTTP: a batch of the messages the cloud's ingest queue carries."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from ...services import Services
from ..schemas import IngestIn, IngestOut
from .common import ERRORS, caller_of


def ingest_router(services: Services) -> Router:
    router = Router()
    caller = caller_of(router, services.settings)

    @router.post(
        "/v1/ingest",
        summary="Apply a batch of ingestion messages, in order",
        description='Body {"messages": [...]}, at most 500: the JSON Lines messages of '
        '`agent-memory ingest` (`{"op": "session" | "begin" | "events" | "commit" | '
        '"rollback", "agent", "session", "turn", ...}`). Each is applied on its own and '
        "answered in its place: `applied`, `already applied` (delivered before: nothing "
        "changed) or `failed` with the error it would have had alone. Events sent after "
        "their turn ended fail unless they were kept before.",
        responses=ERRORS,
        tags=["history"],
    )
    def ingest(body: Annotated[IngestIn, Body()]) -> IngestOut:
        who = caller()
        # A batch starts sessions and runs turns in any session it names: not for a token
        # that may reach only the sessions its own subject started.
        who.can_write_agents()
        results = services.ingest.apply_batch(who.tenant, body.messages)
        counts = {s: sum(r.status == s for r in results) for s in IngestOut.STATUSES}
        return IngestOut(
            results=results,
            applied=counts["applied"],
            already_applied=counts["already applied"],
            failed=counts["failed"],
        )

    return router
