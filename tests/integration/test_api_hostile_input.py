"""Hostile input is never a 500, on SQLite and on DynamoDB (moto), and in the Lambda handler:
each refusal is a 400 (413 for size) with a clear code, and changes nothing.

Bodies are refused on their text before any parser meets them (too deep, a number too long,
not an object, too large); booleans are not numbers; labels nested past reason are a 400; a
refused tool call's recorded execution reads back; paths refuse control, format and bidi
characters and are NFC-normalised."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web"
AGENT = {"role": "agent"}
MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "labels": {"customer_id": {"number": 5}},
            "tools": ["add_memory", "read_memory"],
        }
    }
}


def nested(levels: int, leaf: str = '"v"') -> str:
    return '{"a":' * levels + leaf + "}" * levels


@pytest.fixture
def turn(api):
    api.ok("PUT", A, MANIFEST, expect=201)
    session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    turn_id = api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)["id"]
    return f"{A}/-/sessions/{session}/turns/{turn_id}"


def unchanged(api, turn: str, refused_calls: int = 0) -> None:
    """Nothing a refused request could have touched changed: the agent's manifest, its
    sessions, the turn's memories, the records. A tool call refused by the tool is recorded
    as a failed execution (as every call is); one refused before it reaches a route is not."""
    assert api.ok("GET", A)["manifestVersion"] == 1
    assert len(api.ok("GET", f"{A}/-/sessions")["sessions"]) == 1
    detail = api.ok("GET", turn)
    assert detail["memories"] == []
    assert len(detail["executions"]) == refused_calls
    assert all(e["error"] and e["output"] is None for e in detail["executions"])
    assert api.ok("GET", f"{A}/-/records", preview="any")["records"] == []
    assert api.ok("GET", f"{A}/-/memories")["memories"] == []


BODIES = {
    "null": "null",
    "array": "[]",
    "string": '"x"',
    "number": "1",
    "too-deep": nested(65),
    "very-deep": nested(5000),
    "open-brackets": '{"a":' + "[" * 50_000,
    "long-int": '{"harness": {"memory": {"search": {"max_results": ' + "9" * 5000 + "}}}}",
    "21-digits": '{"summary": "x", "pinned": 123456789012345678901}',
    "nan": '{"harness": {"memory": {"labels": {"x": {"max": NaN}}}}, "summary": "x"}',
    "infinity": '{"harness": {"x": -Infinity}, "summary": "x", "events": [1e999]}',
}
CODES = {
    "too-deep": "body_too_deep",
    "very-deep": "body_too_deep",
    "open-brackets": "body_too_deep",
    "long-int": "number_too_long",
    "21-digits": "number_too_long",
    "nan": "number_not_finite",
    "infinity": "number_not_finite",
}
ROUTES = [
    ("PUT", ""),
    ("POST", "/-/sessions"),
    ("POST", "/tools/add_memory"),
    ("POST", "/events"),
    ("PUT", "/-/memories/notes.md"),
]


@pytest.mark.parametrize("name", BODIES)
@pytest.mark.parametrize(("method", "route"), ROUTES)
def test_a_hostile_body_is_a_400_that_changes_nothing(api, turn, name, method, route):
    path = turn + route if route.startswith("/tools") or route == "/events" else A + route
    status, body = api.call(method, path, BODIES[name])
    assert status == 400, body
    assert body["error"]["code"] == CODES.get(name, "invalid_request")
    unchanged(api, turn)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("", {"harness": {"memory": {"enabled": True, "search": {"max_results": True}}}}),
        ("", {"harness": {"memory": {"enabled": 1}}}),
        ("", {"harness": {"memory": {"labels": {"x": {"number": True}}}}}),
        ("", {"harness": {"memory": {"search": {"min_score": False}}}}),
        ("/tools/add_memory", {"summary": "s", "pinned": 1, "caller": AGENT}),
        ("/tools/search_memory", {"query": "q", "limit": True, "caller": AGENT}),
        ("/events", {"events": [{"role": "user", "text": "hi", "sequence": True}]}),
    ],
)
def test_booleans_are_not_numbers_nor_numbers_booleans(api, turn, path, body):
    method, target = ("PUT", A) if path == "" else ("POST", turn + path)
    status, answer = api.call(method, target, body)
    assert status == 400, answer
    assert answer["error"]["code"] in (
        "invalid_request",
        "memory.invalid_argument",
        "invalid_events",
    )
    unchanged(api, turn, refused_calls=1 if path.startswith("/tools") else 0)


def test_a_refused_tool_call_nested_to_the_limit_reads_back(api, turn):
    # The deepest body the API takes, its unknown argument refused: the execution recorded
    # for it is read back with the turn, now and later.
    deep = json.loads(nested(62))
    status, body = api.call(
        "POST", f"{turn}/tools/add_memory", {"summary": "s", "bogus": deep, "caller": AGENT}
    )
    assert (status, body["error"]["code"]) == (400, "memory.invalid_argument")
    for _ in range(2):
        [execution] = api.ok("GET", turn)["executions"]
        assert execution["error"]["code"] == "memory.invalid_argument"
    api.ok("POST", f"{turn}/commit")
    assert len(api.ok("GET", turn)["executions"]) == 1


@pytest.mark.parametrize(
    "labels", [nested(200), "[" * 200 + "]" * 200, nested(5000), '{"customer_id": 1}', "null"]
)
def test_labels_nested_past_reason_are_a_400(api, turn, labels):
    status, body = api.call("GET", f"{A}/-/records", labels=labels)
    assert (status, body["error"]["code"]) == (400, "invalid_labels")


def test_labels_nested_in_a_tool_call_are_a_400_that_changes_nothing(api, turn):
    labels = json.loads(nested(60))
    status, body = api.call(
        "POST", f"{turn}/tools/add_memory", {"summary": "s", "labels": labels, "caller": AGENT}
    )
    assert (status, body["error"]["code"]) == (400, "memory.invalid_argument")
    api.ok("POST", f"{turn}/commit")
    assert api.ok("GET", f"{A}/-/records")["records"] == []


@pytest.mark.parametrize(
    "path", ["a\u202egnp.md", "a\u200bb.md", "a\u2066b.md", "a\ufeffb.md", "a\u0085b.md"]
)
def test_paths_with_format_or_bidi_characters_are_a_400_that_changes_nothing(api, turn, path):
    status, body = api.call("PUT", f"{A}/-/memories/{path}", {"content": "x"})
    assert (status, body["error"]["code"]) == (400, "invalid_path")
    status, body = api.call(
        "POST",
        f"{turn}/tools/memory",
        {"command": "create", "path": f"/memories/{path}", "file_text": "x", "caller": AGENT},
    )
    assert status == 400
    api.ok("POST", f"{turn}/commit")
    assert api.ok("GET", f"{A}/-/memories")["memories"] == []


def test_paths_are_nfc_normalised_one_name_one_memory(api, turn):
    api.ok("PUT", f"{A}/-/memories/cafe\u0301.md", {"content": "one"}, expect=201)
    # The same name typed precomposed is the same memory: replaced, not made again.
    api.ok("PUT", f"{A}/-/memories/caf\u00e9.md", {"content": "two"}, expect=200)
    [memory] = api.ok("GET", f"{A}/-/memories")["memories"]
    assert memory["path"] == "/memories/caf\u00e9.md"
    assert api.ok("GET", f"{A}/-/memories/cafe\u0301.md")["content"] == "two"


def test_the_lambda_handler_refuses_a_deep_body_before_parsing(api, turn):
    from agent_memory.api.body_limits import MAX_BODY_BYTES
    from apiclient import http_event

    handler = api.handler
    deep = http_event("PUT", A, nested(100_000))
    assert json.loads(handler(deep, None)["body"])["error"]["code"] == "body_too_deep"
    huge = http_event("PUT", A, '{"a": "' + "x" * MAX_BODY_BYTES + '"}')
    response = handler(huge, None)
    assert (response["statusCode"], json.loads(response["body"])["error"]["code"]) == (
        413,
        "payload_too_large",
    )
    unchanged(api, turn)


def test_the_openapi_document_states_the_real_constraints(tmp_path):
    import re

    from agent_memory.api.app import Api
    from agent_memory.bootstrap import build_services
    from agent_memory.domain.kernel.ids import validate_agent_id
    from agent_memory.settings import Settings

    document = Api(build_services(Settings(data_dir=tmp_path, embeddings="none"))).openapi()

    def parameter(path: str, method: str, name: str) -> dict:
        [found] = [p for p in document["paths"][path][method]["parameters"] if p["name"] == name]
        return found["schema"]

    agent_id = parameter("/v1/agents/{agentId}", "get", "agentId")
    for good in ["a", "teams/web/releases", "/".join(["s"] * 10), "A0._~-"]:
        validate_agent_id(good)
        assert re.match(agent_id["pattern"], good)
    for bad in ["-", "a/-", "a//b", "/".join(["s"] * 11), "a b", "_a"]:
        assert not re.match(agent_id["pattern"], bad)
    memory = "/v1/agents/{agentId}/-/memories/{path}"
    assert re.match(parameter(memory, "put", "path")["pattern"], "conventions/release.md")
    assert not re.match(parameter(memory, "put", "path")["pattern"], "conventions/release")
    assert re.match(parameter(memory, "delete", "path")["pattern"], "conventions")
    turn = "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}"
    assert parameter(turn, "get", "turn_id")["pattern"] == "^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"
    assert "memory" in parameter(turn + "/tools/{name}", "post", "name")["enum"]
    schemas = document["components"]["schemas"]
    assert schemas["PutMemoryIn"]["required"] == ["content"]
    assert schemas["ForkIn"]["required"] == ["id"]
