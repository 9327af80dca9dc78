"""A WSGI app that turns each request into the API Gateway HTTP API v2 event the cloud sends,
checks the bearer token, and hands the event to the same resolver the Lambda function runs."""

from __future__ import annotations

import base64
import json
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl

from ..api.app import OPENAPI_PATH, Api
from ..api.body_limits import MAX_BODY_BYTES
from ..api.context import TOKEN_ID_CLAIM
from ..api.routes.console import is_console_path
from ..api.routes.health import HEALTH_PATH
from ..domain.kernel.auth import Principal
from .fairness import TenantBusy, TenantGate
from .limits import RateLimiter, retry_after
from .request_log import EVENTS_ROUTE, log_request
from .sse import EventStreams
from .tokens import TokenBook

logger = logging.getLogger(__name__)

StartResponse = Callable[[str, list[tuple[str, str]]], Any]
PUBLIC_PATHS = frozenset({OPENAPI_PATH, HEALTH_PATH})


class LocalGateway:
    """Requests are read, resolved and answered on waitress's threads, several at once: the
    resolver keeps each request's state apart (api.app.ConcurrentHttpResolver), the store gives
    each thread its own SQLite connection (reads never wait for a write under WAL; writes
    take the file's one write lock in turn, queued on a mutex: database.Database), and
    embeddings are made by the background embedder, not in requests. Event streams (which hold
    a request open) never enter the resolver."""

    def __init__(
        self,
        api: Api,
        tokens: TokenBook,
        tenant_claim: str,
        streams: EventStreams | None = None,
        roles_claim: str = "roles",
        per_token: RateLimiter | None = None,
        failed_auth: RateLimiter | None = None,
        tenants: TenantGate | None = None,
    ) -> None:
        self.api = api
        self.tokens = tokens
        self.tenant_claim = tenant_claim
        self.roles_claim = roles_claim
        # Requests of each token; and attempts with no valid token, of each client address
        # (guessing tokens is slowed, not only refused).
        self.per_token = per_token
        self.failed_auth = failed_auth
        self.streams = streams
        # Requests of one tenant running at once (fairness: one tenant's load cannot hold
        # every worker while another's requests wait).
        self.tenants = tenants

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Answer the request and log one line for it (request_log: what, never a secret)."""
        started = time.perf_counter()
        seen: dict[str, Any] = {"route": None, "tenant": None}
        status = 500

        def starting(line: str, headers: list[tuple[str, str]]) -> Any:
            nonlocal status
            status = int(line.split(" ", 1)[0])
            return start_response(line, headers)

        try:
            return self._answer(environ, starting, seen)
        finally:
            method = str(environ.get("REQUEST_METHOD", "GET"))
            log_request(method, seen["route"], status, started, seen["tenant"])

    def _answer(
        self, environ: dict[str, Any], start_response: StartResponse, seen: dict[str, Any]
    ) -> Iterable[bytes]:
        try:
            # WSGI hands the decoded path as latin-1 text (PEP 3333): its bytes are UTF-8.
            path = (environ.get("PATH_INFO") or "/").encode("latin-1").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            return error(start_response, 400, "invalid_path", "the request path is not UTF-8")
        grant = None
        token = ""
        # The console's files are public (they hold no data); the API behind them is not.
        if path not in PUBLIC_PATHS and not is_console_path(path):
            header = environ.get("HTTP_AUTHORIZATION", "")
            scheme, _, token = header.partition(" ")
            token = token.strip() if scheme.lower() == "bearer" else ""
            # The token is checked first (a hash and a stat: cheap), so that only requests
            # without a valid one are counted against their address: tokenless requests from a
            # shared address (every local process is 127.0.0.1) never lock out a valid token.
            grant = self.tokens.grant_for(token)
            if grant is None:
                client = f"addr:{environ.get('REMOTE_ADDR', '')}"
                if self.failed_auth is not None and (wait := self.failed_auth.take(client)):
                    return too_many(start_response, wait)
                return error(start_response, 401, "unauthorized", unauthorized_text(token))
            if self.per_token is not None and (wait := self.per_token.take(f"token:{grant.id}")):
                return too_many(start_response, wait)
        if grant is not None:
            seen["tenant"] = grant.tenant
        if self.streams is not None and grant is not None and self.streams.matches(environ):
            seen["route"] = EVENTS_ROUTE
            who = Principal(grant.tenant, grant.who, grant.scopes, grant.roles, grant.id)
            tokens, sent = self.tokens, token

            def still_valid() -> bool:
                return tokens.grant_for(sent) is not None

            return self.streams(environ, start_response, who, still_valid)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if length > MAX_BODY_BYTES:
            return error(
                start_response,
                413,
                "payload_too_large",
                f"request bodies are at most {MAX_BODY_BYTES} bytes",
            )
        body = environ["wsgi.input"].read(length) if length else b""
        claims = (
            {
                self.tenant_claim: grant.tenant,
                "sub": grant.who,
                "scope": " ".join(sorted(grant.scopes)),
                self.roles_claim: " ".join(sorted(grant.roles)),
                TOKEN_ID_CLAIM: grant.id,
            }
            if grant
            else None
        )
        event = to_event(environ, path, body, claims)
        if self.tenants is None or grant is None:
            result, seen["route"] = self.api.handle_routed(event, None)
            return respond(start_response, result)
        try:
            with self.tenants.turn(grant.tenant):
                result, seen["route"] = self.api.handle_routed(event, None)
        except TenantBusy:
            return too_many(start_response, 1.0)
        return respond(start_response, result)


def unauthorized_text(token: str) -> str:
    """Why a request has no valid token: none sent, or one this server does not know. The same
    words for every unknown token, so a 401 never tells whose a token was or whether it was."""
    if not token.strip():
        return (
            "no API token: send the header Authorization: Bearer <token> "
            "(the embedded server's is in <data-dir>/token)"
        )
    return (
        "the API token is not recognised (unknown, revoked or expired): send one from "
        "<data-dir>/token or `agent-memory token create`"
    )


def to_event(
    environ: dict[str, Any], path: str, body: bytes, claims: dict[str, Any] | None
) -> dict[str, Any]:
    """The API Gateway HTTP API (payload format 2.0) event for one WSGI request."""
    headers: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            headers[key[5:].replace("_", "-").lower()] = value
    for key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if environ.get(key):
            headers[key.replace("_", "-").lower()] = environ[key]
    raw_query = environ.get("QUERY_STRING", "")
    query: dict[str, str] = {}
    for name, value in parse_qsl(raw_query, keep_blank_values=True):
        # API Gateway joins repeated parameters with commas.
        query[name] = f"{query[name]},{value}" if name in query else value
    method = environ.get("REQUEST_METHOD", "GET")
    now = time.time()
    try:
        text: str | None = body.decode("utf-8") if body else None
        encoded = False
    except UnicodeDecodeError:
        text, encoded = base64.b64encode(body).decode(), True
    context: dict[str, Any] = {
        "accountId": "local",
        "apiId": "local",
        "domainName": environ.get("HTTP_HOST", "local"),
        "http": {
            "method": method,
            "path": path,
            "protocol": environ.get("SERVER_PROTOCOL"),
            "sourceIp": environ.get("REMOTE_ADDR", ""),
            "userAgent": environ.get("HTTP_USER_AGENT", ""),
        },
        "requestId": str(uuid.uuid4()),
        "routeKey": "$default",
        "stage": "$default",
        "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
        "timeEpoch": int(now * 1000),
    }
    if claims is not None:
        context["authorizer"] = {"jwt": {"claims": claims, "scopes": None}}
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": raw_query,
        "headers": headers,
        "queryStringParameters": query or None,
        "requestContext": context,
        "body": text,
        "isBase64Encoded": encoded,
    }


def respond(start_response: StartResponse, result: dict[str, Any]) -> list[bytes]:
    status = int(result.get("statusCode", 200))
    body = result.get("body") or ""
    payload = base64.b64decode(body) if result.get("isBase64Encoded") else body.encode()
    if status in (204, 304):
        payload = b""  # these carry no body (a WSGI server would warn and drop it)
    headers = [(k, str(v)) for k, v in (result.get("headers") or {}).items()]
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers.extend((name, str(v)) for v in values)
    headers.extend(("Set-Cookie", c) for c in result.get("cookies") or [])
    if status not in (204, 304):
        headers.append(("Content-Length", str(len(payload))))
    start_response(f"{status} {HTTPStatus(status).phrase}", headers)
    return [payload]


def too_many(start_response: StartResponse, wait: float) -> list[bytes]:
    return error(
        start_response,
        429,
        "too_many_requests",
        "too many requests: try again after Retry-After seconds",
        {"Retry-After": retry_after(wait)},
    )


def error(
    start_response: StartResponse,
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
) -> list[bytes]:
    return respond(
        start_response,
        {
            "statusCode": status,
            "headers": {"Content-Type": "application/json", **(headers or {})},
            "body": json.dumps(
                {"error": {"code": code, "message": message}}, separators=(",", ":")
            ),
        },
    )
