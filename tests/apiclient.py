"""Drive the resolver with API Gateway HTTP API v2 events, as the cloud and the local server do."""

from __future__ import annotations

import io
import json
from typing import Any
from urllib.parse import urlencode

ALL_SCOPES = "agents:read agents:write sessions:own"


def http_event(
    method: str,
    path: str,
    body: Any = None,
    query: dict[str, Any] | None = None,
    tenant: str | None = "acme",
    scope: str = ALL_SCOPES,
) -> dict[str, Any]:
    params = {k: str(v) for k, v in (query or {}).items() if v is not None}
    context: dict[str, Any] = {
        "http": {
            "method": method,
            "path": path,
            "protocol": "HTTP/1.1",
            "sourceIp": "192.0.2.1",
            "userAgent": "tests",
        },
        "requestId": "req-1",
        "routeKey": "ANY /v1/agents/{proxy+}",
        "stage": "$default",
        "timeEpoch": 0,
    }
    if tenant is not None:
        context["authorizer"] = {
            "jwt": {"claims": {"tenant": tenant, "sub": "u1", "scope": scope}, "scopes": None}
        }
    return {
        "version": "2.0",
        "routeKey": "ANY /v1/agents/{proxy+}",
        "rawPath": path,
        "rawQueryString": urlencode(params),
        "headers": {"content-type": "application/json"},
        "queryStringParameters": params or None,
        "requestContext": context,
        "body": body if isinstance(body, str) or body is None else json.dumps(body),
        "isBase64Encoded": False,
    }


def drained(handler: Any, services: Any) -> Any:
    """The handler, with the background embedder's queue emptied after each request: what the
    server's embedder thread does in the background, done before the next request, so a test
    reads a settled index (tests of the queue itself use the handler as it is)."""

    def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
        try:
            return handler(event, context)  # type: ignore[no-any-return]
        finally:
            services.drain_vectors()

    return handle


class ApiClient:
    """Calls `handler(event, context)` and returns (status, parsed body)."""

    def __init__(self, handler: Any, tenant: str = "acme", scope: str = ALL_SCOPES) -> None:
        self.handler = handler
        self.tenant = tenant
        self.scope = scope

    def as_tenant(self, tenant: str | None, scope: str = ALL_SCOPES) -> ApiClient:
        return ApiClient(self.handler, tenant, scope)  # type: ignore[arg-type]

    def call(self, method: str, path: str, body: Any = None, /, **query: Any) -> tuple[int, Any]:
        event = http_event(method, path, body, query, self.tenant, self.scope)
        response = self.handler(event, None)
        raw = response.get("body") or ""
        return int(response["statusCode"]), json.loads(raw) if raw else None

    def ok(
        self, method: str, path: str, body: Any = None, /, expect: int = 200, **query: Any
    ) -> Any:
        status, payload = self.call(method, path, body, **query)
        assert status == expect, (status, payload)
        return payload


def wsgi_request(
    gateway: Any, token: str, method: str, path: str, body: dict[str, Any] | bytes | None = None
) -> tuple[int, Any]:
    """One request through a WSGI app (the embedded server's gateway), as a server hands it."""
    raw = body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
    environ = {
        "REQUEST_METHOD": method,
        # As a WSGI server hands it: the decoded path's UTF-8 bytes as latin-1 text (PEP 3333).
        "PATH_INFO": path.encode("utf-8", "surrogateescape").decode("latin-1"),
        "QUERY_STRING": "",
        "HTTP_AUTHORIZATION": f"Bearer {token}",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
        "SERVER_PROTOCOL": "HTTP/1.1",
    }
    status: list[str] = []
    payload = b"".join(gateway(environ, lambda s, headers: status.append(s)))
    return int(status[0].split()[0]), json.loads(payload or b"null")
