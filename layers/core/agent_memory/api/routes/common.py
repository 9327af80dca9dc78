"""What every route shares: the caller, response helpers and the documented error responses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from pydantic import BaseModel

from ...domain.kernel.auth import Principal
from ...settings import Settings
from ..context import principal_from_event
from ..schemas import ErrorResponse


def caller_of(router: Router, settings: Settings) -> Callable[[], Principal]:
    tenant_claim, roles_claim = settings.tenant_claim, settings.roles_claim

    def caller() -> Principal:
        return principal_from_event(router.current_event.raw_event, tenant_claim, roles_claim)

    return caller


def created(body: BaseModel) -> Response[Any]:
    return Response(201, content_type="application/json", body=body)


def no_content() -> Response[None]:
    # No body, so no Content-Type: a client (or schemathesis) told it is JSON would parse "".
    # Powertools' annotations want None for a Response[None]; the empty text is what a 204 has
    # always sent, and the tests of every 204 route hold it.
    return Response(204, body="")  # type: ignore[arg-type]


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"model": ErrorResponse}}}


FAILURES: dict[int, Any] = {
    400: _error("Bad input: nothing was changed."),
    401: _error("No valid token."),
    403: _error("The token lacks the scope (or the caller role) this call needs."),
    404: _error("The agent, session or turn does not exist."),
    409: _error("Conflicts with the stored state: nothing was changed."),
}
# 200 without content: the resolver describes it with the route's return type.
ERRORS: dict[int, Any] = {200: {"description": "Done."}, **FAILURES}
NO_CONTENT: dict[int, Any] = {204: {"description": "Done; no body."}, **FAILURES}


def created_responses(model: type[BaseModel], replaced: bool = False) -> dict[int, Any]:
    """201 with `model` (and 200 for a route that also replaces)."""
    made = {"description": "Created.", "content": {"application/json": {"model": model}}}
    return {**({200: {"description": "Replaced."}} if replaced else {}), 201: made, **FAILURES}
