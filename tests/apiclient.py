"""Drive the resolver with API Gateway HTTP API v2 events, as the cloud and the local server do."""

from __future__ import annotations

import io
import json
from typing import Any
from urllib.parse import urlencode

ALL_SCOPES = "agents:read agents:write sessions:own admin"


def http_event(
    method: str,
    path: str,
    body: Any = None,
    query: dict[str, Any] | None = None,
    tenant: str | None = "acme",
    scope: str = ALL_SCOPES,
    extra_claims: dict[str, Any] | None = None,
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
            "jwt": {
                "claims": {"tenant": tenant, "sub": "u1", "scope": scope, **(extra_claims or {})},
                "scopes": None,
            }
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

    def __init__(
        self,
        handler: Any,
        tenant: str = "acme",
        scope: str = ALL_SCOPES,
        claims: dict[str, Any] | None = None,
    ) -> None:
        self.handler = handler
        self.tenant = tenant
        self.scope = scope
        self.claims = claims

    def as_tenant(self, tenant: str | None, scope: str = ALL_SCOPES, **claims: Any) -> ApiClient:
        """The same handler for another caller: `sub="u2"` or `roles="helper"` set claims."""
        return ApiClient(self.handler, tenant, scope, claims)  # type: ignore[arg-type]

    def call(self, method: str, path: str, body: Any = None, /, **query: Any) -> tuple[int, Any]:
        event = http_event(method, path, body, query, self.tenant, self.scope, self.claims)
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
    app: Any,
    token: str,
    method: str,
    path: str,
    body: Any = None,
    query: dict[str, str] | None = None,
) -> tuple[int, bytes]:
    """One request to a WSGI app (the embedded server's gateway) as a WSGI server hands it:
    the decoded path's UTF-8 bytes as latin-1 text (PEP 3333). Returns (status, body)."""
    raw = body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path.encode("utf-8", "surrogateescape").decode("latin-1"),
        "QUERY_STRING": urlencode(query or {}),
        "HTTP_AUTHORIZATION": f"Bearer {token}",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
        "SERVER_PROTOCOL": "HTTP/1.1",
    }
    status: list[str] = []
    payload = b"".join(app(environ, lambda s, _headers: status.append(s)))
    return int(status[0].split()[0]), payload
