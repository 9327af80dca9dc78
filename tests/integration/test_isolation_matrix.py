"""Every operation of the OpenAPI document, probed by callers who must not reach tenant acme's
things: no token, a bad token, another tenant's admin, another subject's `sessions:own` token,
and a helper-only token claiming to be the agent. Each gets the status the security model
promises, and acme's state reads the same afterwards, on both stores.

The operations, their path parameters and their bodies come from the document: a new route is
probed without editing this file (a path parameter this file has no value for fails loudly)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

import pytest

from agent_memory.api.app import Api
from agent_memory.domain.kernel.auth import ALL_SCOPES, SESSIONS_OWN
from agent_memory.local.gateway import LocalGateway
from agent_memory.local.tokens import TokenBook, TokenGrant
from apiclient import http_event, wsgi_request

pytestmark = pytest.mark.integration

AGENT = "teams/web"
# Written into acme's data: no other tenant's probe may read the first, no probe at all the
# second, which is in the session of subject u1 only (a `sessions:own` token of another subject
# may read what is the whole agent's, never another subject's session).
MARKER = "acme-private-4f1c"
SESSION_MARKER = "u1-session-only-9d2e"
TOKENS = {
    "acme-admin": TokenGrant("acme", ALL_SCOPES, "tok_acme", "u1"),
    "globex-admin": TokenGrant("globex", ALL_SCOPES, "tok_globex", "g1"),
    "acme-u2-own": TokenGrant("acme", frozenset({SESSIONS_OWN}), "tok_u2", "u2"),
    "acme-helper": TokenGrant("acme", ALL_SCOPES, "tok_helper", "u1", frozenset({"helper"})),
}
MANIFEST_NAME = "releases"
MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "tools": ["add_memory", "read_memory", "delete_memory"],
        },
        "history": {"index": "messages"},
    }
}


class Probe:
    def __init__(self, gateway: LocalGateway, api: Api) -> None:
        self.gateway, self.api = gateway, api

    def __call__(
        self,
        token: str,
        method: str,
        path: str,
        body: Any = None,
        query: dict[str, str] | None = None,
    ) -> tuple[int, Any, str]:
        status, body_bytes = wsgi_request(self.gateway, token, method, path, body, query)
        payload = body_bytes.decode()
        try:
            parsed = json.loads(payload)
        except ValueError:
            parsed = payload  # JSON Lines, or no body
        return status, parsed, payload

    def unauthenticated(
        self, method: str, path: str, body: Any, query: dict[str, str] | None
    ) -> tuple[int, Any]:
        """The cloud shape with no JWT: the resolver itself, with no authorizer context."""
        event = http_event(method, path, body, query, tenant=None)
        answer = self.api.handle(event, None)
        return int(answer["statusCode"]), json.loads(answer.get("body") or "null")

    def ok(self, method: str, path: str, body: Any = None, **query: str) -> Any:
        status, answer, _ = self("acme-admin", method, path, body, query or None)
        assert status in (200, 201, 204), (method, path, status, answer)
        return answer


@pytest.fixture
def world(services):
    """acme's agent with a session of subject u1: a committed turn that wrote a record, an open
    turn, a memory file, history; globex exists with its own agent."""
    api = Api(services)
    probe = Probe(LocalGateway(api, TokenBook.of_tokens(TOKENS), "tenant"), api)
    base = f"/v1/agents/{AGENT}"
    probe.ok("PUT", base, MANIFEST)
    probe.ok("PUT", f"{base}/-/memories/notes.md", {"content": f"# notes\n{MARKER}\n"})
    session = probe.ok(
        "POST", f"{base}/-/sessions", {"id": "s1", "metadata": {"m": SESSION_MARKER}}
    )
    assert session["owner"] == "u1"
    turns = f"{base}/-/sessions/s1/turns"
    first = probe.ok("POST", turns, {})["id"]
    probe.ok(
        "POST",
        f"{turns}/{first}/events",
        {"events": [{"role": "user", "text": f"remember {SESSION_MARKER}", "sequence": 1}]},
    )
    add = f"{turns}/{first}/tools/add_memory"
    agent_wide = {"summary": f"The code is {MARKER}", "scope": "agent"}
    probe.ok("POST", add, {**agent_wide, "caller": {"role": "agent"}})
    own = {"summary": f"Said {SESSION_MARKER}", "scope": "session", "caller": {"role": "agent"}}
    record = probe.ok("POST", add, own)["output"]["memories"][0]
    probe.ok("POST", f"{turns}/{first}/commit")
    open_turn = probe.ok("POST", turns, {})["id"]
    versions = probe.ok("GET", f"{base}/-/memory-versions")["versions"]
    probe("globex-admin", "PUT", "/v1/agents/teams/globex", {"harness": {}})
    probe.ok("PUT", f"/v1/agent-manifests/{MANIFEST_NAME}", MANIFEST)
    values = {
        "agentId": AGENT,
        "session_id": "s1",
        "turn_id": open_turn,
        "record_id": record["id"],
        "path": "notes.md",
        "version_id": versions[0]["id"],
        "version": "1",
        "name": "add_memory",
        "manifest_name": MANIFEST_NAME,
    }
    return probe, values


def acme_state(probe: Probe) -> dict[str, Any]:
    """What acme can read of its own things, by its admin (sessions others started left out)."""
    base = f"/v1/agents/{AGENT}"
    sessions = [
        s for s in probe.ok("GET", f"{base}/-/sessions")["sessions"] if s.get("owner") == "u1"
    ]
    state: dict[str, Any] = {
        "agents": probe.ok("GET", "/v1/agents"),
        "agent": probe.ok("GET", base),
        "manifests": probe.ok("GET", f"{base}/-/manifest-versions"),
        "named manifests": probe.ok("GET", "/v1/agent-manifests"),
        "named versions": probe.ok("GET", f"/v1/agent-manifests/{MANIFEST_NAME}/versions"),
        "sessions": sessions,
        "records": probe.ok("GET", f"{base}/-/records", status="all", preview="any"),
        "memories": probe.ok("GET", f"{base}/-/memories"),
        "memory-versions": probe.ok("GET", f"{base}/-/memory-versions"),
        "limits": probe.ok("GET", "/v1/tenant/limits"),
    }
    for s in sessions:
        turns = probe.ok("GET", f"{base}/-/sessions/{s['id']}/turns")
        state[f"turns {s['id']}"] = turns
        state[f"history {s['id']}"] = probe.ok("GET", f"{base}/-/sessions/{s['id']}/history")
        for t in turns["turns"]:
            state[f"turn {t['id']}"] = probe.ok(
                "GET", f"{base}/-/sessions/{s['id']}/turns/{t['id']}"
            )
    for m in state["memories"]["memories"]:
        state[f"memory {m['path']}"] = probe.ok("GET", f"{base}/-/memories{m['path'][9:]}")
    return state


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every operation that needs a token (a public one, `security: []`, holds no data: the
    health check has its own test)."""
    return [
        (method.upper(), path, op)
        for path, item in document["paths"].items()
        for method, op in item.items()
        if op.get("security") != []
    ]


def body_for(document: dict[str, Any], op: dict[str, Any]) -> Any:
    """A body the operation accepts (so a refusal is for who calls, not what is sent): the
    required fields of its schema, filled by type; a free-form object states the agent."""
    content = (op.get("requestBody") or {}).get("content", {}).get("application/json")
    return None if content is None else _value(document, content["schema"], "body")


EXAMPLES = {"id": "teams/copy", "content": "# probe\n"}


def _value(document: dict[str, Any], schema: dict[str, Any], name: str) -> Any:
    if "$ref" in schema:
        return _value(
            document, document["components"]["schemas"][schema["$ref"].split("/")[-1]], name
        )
    if "anyOf" in schema:
        return _value(document, schema["anyOf"][0], name)
    if "enum" in schema:  # a caller's role, say: a value the schema names
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        if not props:
            return {"caller": {"role": "agent"}, "summary": "probe", "context": "probe"}
        return {k: _value(document, props[k], k) for k in schema.get("required", [])}
    if kind == "array":
        return [_value(document, schema.get("items", {}), name)]
    if kind == "integer":
        return 1
    if kind == "boolean":
        return False
    return EXAMPLES.get(name, "probe")


def concrete(path: str, values: dict[str, str], op: dict[str, Any]) -> str:
    names = [p["name"] for p in op.get("parameters", []) if p["in"] == "path"]
    missing = [n for n in names if n not in values]
    assert not missing, f"no value for path parameter(s) {missing} of {path}: add one to world()"
    return re.sub(
        r"\{(\w+)\}",
        lambda m: values[m[1]] if m[1] == "agentId" else quote(values[m[1]], safe=""),
        path,
    )


def required_query(op: dict[str, Any]) -> dict[str, str]:
    return {
        p["name"]: "acme"
        for p in op.get("parameters", [])
        if p["in"] == "query" and p.get("required")
    }


class Expect:
    """Checks one probe's answer, and keeps what each probe of the operation answered."""

    def __init__(self, operation: str, seen: list[tuple[str, int, str]]) -> None:
        self.operation, self.seen = operation, seen

    def __call__(self, case: str, status: int, allowed: set[int], answer: Any, raw: str) -> None:
        self.seen.append((case, status, raw[:200]))
        assert status in allowed, (self.operation, case, status, answer)
        assert SESSION_MARKER not in raw, (self.operation, case, "leaked u1's session")
        if case != "other subject":
            assert MARKER not in raw, (self.operation, case, "leaked acme's data")


def test_every_operation_refuses_whom_it_must_and_changes_nothing(world):
    probe, values = world
    document = probe.ok("GET", "/v1/openapi.json")
    before = acme_state(probe)
    assert MARKER in json.dumps(before) and SESSION_MARKER in json.dumps(before)  # to leak
    probed = 0
    for method, template, op in operations(document):
        path = concrete(template, values, op)
        body, query = body_for(document, op), required_query(op)
        has = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
        seen: list[tuple[str, int, str]] = []

        expect = Expect(f"{method} {template}", seen)

        status, answer = probe.unauthenticated(method, path, body, query)
        expect("no token", status, {401}, answer, json.dumps(answer))
        status, answer, raw = probe("not-a-token", method, path, body, query)
        expect("bad token", status, {401}, answer, raw)

        # Another tenant's admin: to it acme's agent is one that does not exist, answered
        # exactly as an id that exists nowhere. Where the path names no agent it acts on its
        # own tenant.
        status, answer, raw = probe("globex-admin", method, path, body, query)
        if "agentId" in has:
            nowhere = concrete(template, {**values, "agentId": "teams/nowhere"}, op)
            twin = probe("globex-admin", method, nowhere, body, query)[0]
            expect("other tenant", status, {twin}, answer, raw)
            assert status >= 400 or method in ("PUT", "DELETE"), (method, template, status)
        else:
            assert status < 500 and status not in (401, 403), (method, template, status, answer)
            expect("other tenant", status, {status}, answer, raw)

        # Another subject of acme, allowed to run its own sessions only: u1's session, and the
        # record written in it, do not exist for it.
        status, answer, raw = probe("acme-u2-own", method, path, body, query)
        if "session_id" in has or (method == "GET" and "record_id" in has):
            expect("other subject", status, {404}, answer, raw)
        elif method == "GET":
            expect("other subject", status, {200, 403}, answer, raw)
        elif method == "POST" and template.endswith("/-/sessions"):
            expect("other subject", status, {201}, answer, raw)  # a session of its own
        else:
            expect("other subject", status, {403}, answer, raw)

        if op.get("x-caller-role"):
            status, answer, raw = probe("acme-helper", method, path, body, query)
            expect("helper as agent", status, {403}, answer, raw)
            assert answer["error"]["code"] == "memory.forbidden"

        assert acme_state(probe) == before, (method, template, seen)
        probed += 1
    assert probed >= 39  # the document was read whole


def test_the_matrix_reaches_the_role_bound_operations(world):
    probe, _ = world
    document = probe.ok("GET", "/v1/openapi.json")
    bound = {template for _, template, op in operations(document) if op.get("x-caller-role")}
    assert any(t.endswith("/tools/{name}") for t in bound)
    assert any(t.endswith("/recall") for t in bound)
