"""Builds the one resolver both shapes serve, with the error mapping every route shares."""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import threading
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from .. import __version__
from ..domain.kernel.errors import DomainError
from ..services import Services
from . import request_errors
from .body_limits import refusal
from .context import principal_from_event
from .openapi_constraints import state_constraints
from .openapi_tools import describe_tools
from .paths import audit_target, external, normalize_event, route_template
from .routes.agent_manifests import agent_manifests_router
from .routes.agent_turns import agent_turns_router
from .routes.agents import agents_router
from .routes.audit import audit_router
from .routes.console import console_router
from .routes.consolidation import consolidation_router
from .routes.entities import entities_router
from .routes.health import HEALTH_PATH, health_router
from .routes.history import history_router
from .routes.ingest import ingest_router
from .routes.memories import memories_router
from .routes.records import records_router
from .routes.search import search_router
from .routes.sessions import sessions_router
from .routes.tenant import tenant_router
from .routes.tools import tools_router
from .routes.transfer import transfer_router

logger = logging.getLogger(__name__)

OPENAPI_PATH = "/v1/openapi.json"
DESCRIPTION = (
    "Memory and history for AI agents. Agent ids are path-like (`teams/web/releases`) and travel "
    "as plain path segments: `/v1/agents/teams/web/releases` is the agent and "
    "`/v1/agents/teams/web/releases/-/sessions` its sessions; the segment `-` separates the id "
    "from the agent's resources and never appears inside an id. Every error is "
    '`{"error": {"code": ..., "message": ...}}`.'
)


def _json(status: int, body: dict[str, Any]) -> Response[str]:
    return Response(status, "application/json", json.dumps(body, separators=(",", ":")))


def _refused(status: int, code: str, message: str) -> dict[str, Any]:
    """A refusal made before the resolver sees the request, as the resolver would answer it."""
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps({"error": {"code": code, "message": message}}),
        "isBase64Encoded": False,
    }


# A JSON string escape of a UTF-16 surrogate: half of a pair, or a lone one no text can hold.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def text_body(event: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The event with its body as text, or why the body is no text: bytes that are not UTF-8,
    or a JSON string holding a lone surrogate (`"\\ud800"`), which no store can keep. Either
    is the caller's mistake, a 400, not the service's 500 further in."""
    body = event.get("body")
    if not body:
        return event, None
    if event.get("isBase64Encoded"):
        try:
            body = base64.b64decode(body, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return event, "the request body is not UTF-8 text"
        event = {**event, "body": body, "isBase64Encoded": False}
    if _SURROGATE_ESCAPE.search(body):
        try:
            json.dumps(json.loads(body), ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return event, "the request body holds a lone UTF-16 surrogate (\\ud800-\\udfff)"
        except ValueError:
            pass  # not JSON at all: the route's validation says so
    return event, None


def json_body(event: dict[str, Any]) -> dict[str, Any]:
    """Every body this API takes is JSON. A client that sends one without saying so (curl's
    default is form-urlencoded) would otherwise have it silently ignored; read it as JSON, so a
    body that is not JSON is a 400 instead."""
    if not event.get("body"):
        return event
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    declared = headers.get("content-type", "").split(";")[0].strip().lower()
    if declared == "application/json" or declared.endswith("+json"):
        return event
    headers["content-type"] = "application/json"
    return {**event, "headers": headers}


@dataclass
class _RequestState:
    event: Any = None
    lambda_context: Any = None
    context: dict[str, Any] = field(default_factory=dict)
    processed_stack_frames: list[str] = field(default_factory=list)
    # The template of the route that answered (`/v1/agents/<agent_id>/sessions`), for the
    # request log; None when no route matched.
    route: str | None = None
    unmatched: bool = False


class ConcurrentHttpResolver(APIGatewayHttpResolver):
    """Powertools' HTTP API resolver, safe for requests in flight together (the embedded
    server's threads). Made for Lambda's one event at a time, the resolver keeps the request it
    handles in process-wide state (`BaseRouter.current_event`, `lambda_context`, `context`):
    two requests at once would read each other's caller, body or route. Here each request's
    state lives in a context variable set for the length of `resolve`, so each thread (each
    request) reads its own; routers read it through their resolver. Powertools' own ASGI
    resolver (`HttpResolverLocal`) keeps its per-request state the same way."""

    def __init__(self, **kwargs: Any) -> None:
        self._startup = _RequestState()  # before any request: route registration's context
        self._request: ContextVar[_RequestState | None] = ContextVar("request", default=None)
        super().__init__(**kwargs)

    @property
    def _state(self) -> _RequestState:
        return self._request.get() or self._startup

    @property
    def current_event(self) -> Any:
        return self._state.event

    @current_event.setter
    def current_event(self, value: Any) -> None:
        self._state.event = value

    @property
    def lambda_context(self) -> Any:
        return self._state.lambda_context

    @lambda_context.setter
    def lambda_context(self, value: Any) -> None:
        self._state.lambda_context = value

    @property
    def context(self) -> dict[str, Any]:
        return self._state.context

    @context.setter
    def context(self, value: dict[str, Any]) -> None:
        self._state.context = value

    @property
    def processed_stack_frames(self) -> list[str]:
        return self._state.processed_stack_frames

    @processed_stack_frames.setter
    def processed_stack_frames(self, value: list[str]) -> None:
        self._state.processed_stack_frames = value

    def resolve(self, event: Any, context: Any) -> dict[str, Any]:
        return self.resolve_routed(event, context)[0]

    def resolve_routed(self, event: Any, context: Any) -> tuple[dict[str, Any], str | None]:
        """The answer, and the template of the route that gave it (None: no route matched)."""
        state = _RequestState(lambda_context=context)
        token = self._request.set(state)
        try:
            return super().resolve(event, context), state.route
        finally:
            self._request.reset(token)

    def _call_route(self, route: Any, route_arguments: dict[str, str]) -> Any:
        # Powertools answers an unknown path through a route made for it (its path is the
        # request's own): only a registered route names a template.
        if not self._state.unmatched:
            self._state.route = route.path
        return super()._call_route(route, route_arguments)

    def _handle_not_found(self, method: str, path: str) -> Any:
        self._state.unmatched = True
        return super()._handle_not_found(method, path)

    def _to_proxy_event(self, event: dict[str, Any]) -> Any:
        # The base class puts the event in BaseRouter's class attribute; this request's own
        # state gets it too, and is what every read here sees.
        proxy = super()._to_proxy_event(event)
        self.current_event = proxy
        return proxy


class Api:
    """The resolver, plus the path normalisation API Gateway's decoded paths need."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.resolver = ConcurrentHttpResolver(enable_validation=True)
        self.resolver.include_router(health_router())
        self.resolver.include_router(agents_router(services))
        self.resolver.include_router(agent_manifests_router(services))
        self.resolver.include_router(sessions_router(services))
        self.resolver.include_router(agent_turns_router(services))
        self.resolver.include_router(tools_router(services))
        self.resolver.include_router(records_router(services))
        self.resolver.include_router(consolidation_router(services))
        self.resolver.include_router(memories_router(services))
        self.resolver.include_router(history_router(services))
        self.resolver.include_router(search_router(services))
        self.resolver.include_router(entities_router(services))
        self.resolver.include_router(ingest_router(services))
        self.resolver.include_router(tenant_router(services))
        self.resolver.include_router(transfer_router(services))
        if services.settings.console:
            self.resolver.include_router(console_router())
        self.resolver.include_router(audit_router(services))
        self._openapi: dict[str, Any] | None = None
        self._openapi_lock = threading.Lock()
        self._register_handlers()

    def handle(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        return self.handle_routed(event, context)[0]

    def handle_routed(
        self, event: dict[str, Any], context: Any
    ) -> tuple[dict[str, Any], str | None]:
        """The answer, and the public template of the route that gave it
        (`/v1/agents/<agent_id>/-/sessions`; None when none did), for the request log."""
        event, problem = text_body(event)
        if problem is not None:
            return _refused(400, "invalid_request", problem), None
        refused = refusal(event.get("body") or "")
        if refused is not None:
            return _refused(refused.status, refused.code, refused.message), None
        result, route = self.resolver.resolve_routed(json_body(normalize_event(event)), context)
        self._audit(event, int(result.get("statusCode", 500)))
        return result, route_template(route) if route else None

    def _audit(self, event: dict[str, Any], status: int) -> None:
        """Every change the API made (a write method answered 2xx) joins the tenant's audit
        trail. It is written after the change: a store that fails here leaves the change made
        and unaudited, which is logged loudly rather than turned into an error for a caller
        whose change stands."""
        http = (event.get("requestContext") or {}).get("http") or {}
        method = str(http.get("method") or "GET").upper()
        if method in ("GET", "HEAD", "OPTIONS") or not 200 <= status < 300:
            return
        path = str(http.get("path") or event.get("rawPath") or "")
        try:
            who = principal_from_event(
                event, self.services.settings.tenant_claim, self.services.settings.roles_claim
            )
            agent_id, target = audit_target(path)
            self.services.audit.record(who, method, f"{method} {path}", agent_id, target, status)
        except Exception:  # noqa: BLE001 - see the docstring: the change stands, say so
            logger.exception("audit entry not written", extra={"route": f"{method} {path}"})

    def openapi(self) -> dict[str, Any]:
        # Built once, by one request: Powertools' schema generation shares state, and two
        # requests building it at once (a client retrying a slow first call) break each other.
        with self._openapi_lock:
            if self._openapi is None:
                self._openapi = self._build_openapi()
            return self._openapi

    def _build_openapi(self) -> dict[str, Any]:
        schema = self.resolver.get_openapi_schema(
            title="agent-memory",
            version=__version__,
            description=DESCRIPTION,
        ).model_dump(mode="json", by_alias=True, exclude_none=True)
        paths = schema.get("paths", {})
        schema["paths"] = {external(path): item for path, item in paths.items()}
        for item in schema["paths"].values():
            for method, operation in item.items():
                # Bad input is answered 400 `invalid_request`, never the resolver's 422.
                operation.get("responses", {}).pop("422", None)
                for parameter in operation.get("parameters", []):
                    if parameter.get("in") == "path" and parameter.get("name") == "agent_id":
                        parameter["name"] = "agentId"
                state_constraints(method, operation)
        # The one operation that takes no token says so (OpenAPI: an empty security list).
        schema["paths"][HEALTH_PATH]["get"]["security"] = []
        describe_tools(schema, self.services.tools.tools)
        return schema

    def _register_handlers(self) -> None:
        app = self.resolver

        @app.get(OPENAPI_PATH, include_in_schema=False)
        def openapi_document() -> Response[str]:
            return _json(200, self.openapi())

        @app.exception_handler(DomainError)
        def domain_error(exc: DomainError) -> Response[str]:
            return _json(exc.status, exc.to_body())

        @app.exception_handler(RequestValidationError)
        def invalid_request(exc: RequestValidationError) -> Response[str]:
            return _json(400, request_errors.invalid_request(exc))

        @app.not_found
        def not_found(_: Exception) -> Response[str]:
            event = app.current_event
            route = f"{event.http_method} {event.request_context.http.path}"
            body = {"error": {"code": "route_not_found", "message": f"no route for {route}"}}
            return _json(404, body)

        @app.exception_handler(Exception)
        def unexpected(exc: Exception) -> Response[str]:
            # A 5xx is a bug: log it whole, tell the caller no more than that.
            logger.exception("unhandled error", exc_info=exc)
            return _json(
                500,
                {
                    "error": {
                        "code": "internal_error",
                        "message": "the service failed; this is a bug",
                    }
                },
            )
