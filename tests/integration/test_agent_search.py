"""GET /v1/agents/{id}/-/search: one ranked list of an agent's records, file memories and
history, each hit typed and re-checked against the store."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/ops/assistant"
AGENT = {"role": "agent"}


def seed(api):
    """An agent knowing about the Berlin datacenter three ways, and other things too."""
    manifest = {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["agent"], "write": ["agent"]},
                "tools": ["add_memory"],
            },
            "history": {"index": "messages"},
        }
    }
    api.ok("PUT", A, manifest, expect=201)
    sid = api.ok("POST", f"{A}/-/sessions", {"id": "s1"}, expect=201)["id"]
    turn = api.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
    path = f"{A}/-/sessions/{sid}/turns/{turn}"
    api.ok(
        "POST",
        f"{path}/events",
        {"events": [{"role": "user", "text": "the Berlin datacenter is being decommissioned"}]},
    )
    added = api.ok(
        "POST",
        f"{path}/tools/add_memory",
        {"summary": "Berlin datacenter closes in March", "scope": "agent", "caller": AGENT},
    )["output"]
    api.ok("POST", f"{path}/commit")
    api.ok(
        "PUT",
        f"{A}/-/memories/infra/datacenters.md",
        {"content": "# Datacenters\n\nBerlin datacenter: decommissioned.\n"},
        expect=201,
    )
    api.ok("PUT", f"{A}/-/memories/misc/lunch.md", {"content": "Pizza on Fridays.\n"}, expect=201)
    return sid, added


def test_one_search_finds_records_memories_and_history_each_typed(api, embedded):
    sid, added = seed(api)
    found = api.ok("GET", f"{A}/-/search", query="Berlin datacenter")["hits"]
    types = {h["type"] for h in found}
    assert types == {"record", "memory", "history"}
    scores = [h["score"] for h in found]
    assert scores == sorted(scores, reverse=True)
    record = next(h for h in found if h["type"] == "record")
    assert record["summary"] == "Berlin datacenter closes in March"
    assert record["version"] == 1 and record["id"]
    # What reading each hit needs leads to it.
    assert api.ok("GET", f"{A}/-/records/{record['id']}")["version"] == record["version"]
    memory = next(h for h in found if h["type"] == "memory")
    assert memory["path"] == "/memories/infra/datacenters.md" and memory["version"] == 1
    event = next(h for h in found if h["type"] == "history")
    assert (event["sessionId"], event["turn"], event["sequence"]) == (sid, 1, 1)
    assert event["text"].endswith("the Berlin datacenter is being decommissioned")
    assert event["turnId"] and event["eventId"]


def test_types_narrows_the_search(api, embedded):
    seed(api)
    only = api.ok("GET", f"{A}/-/search", query="Berlin datacenter", types="memories,history")
    assert {h["type"] for h in only["hits"]} == {"memory", "history"}
    assert len(api.ok("GET", f"{A}/-/search", query="Berlin", limit=1)["hits"]) == 1


def test_deleted_things_are_never_found(api, embedded):
    _, _ = seed(api)
    record = next(
        h
        for h in api.ok("GET", f"{A}/-/search", query="Berlin datacenter")["hits"]
        if h["type"] == "record"
    )
    api.ok("DELETE", f"{A}/-/records/{record['id']}")
    api.call("DELETE", f"{A}/-/memories/infra/datacenters.md")
    left = api.ok("GET", f"{A}/-/search", query="Berlin datacenter")["hits"]
    assert {h["type"] for h in left} == {"history"}


def test_a_preview_or_rolled_back_turn_is_never_found(api, embedded):
    seed(api)
    for preview in (True, False):
        turn = api.ok("POST", f"{A}/-/sessions/s1/turns", {"preview": preview}, expect=201)["id"]
        path = f"{A}/-/sessions/s1/turns/{turn}"
        api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": "zanzibar plan"}]})
        api.ok("POST", f"{path}/commit" if preview else f"{path}/rollback")
    assert api.ok("GET", f"{A}/-/search", query="zanzibar plan")["hits"] == []


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ({"query": "x", "types": "records,people"}, "invalid_types"),
        ({"query": "x", "types": ","}, "invalid_types"),
        ({"query": "x", "limit": 0}, None),
        ({"query": "x", "limit": 51}, None),
        ({"query": "   "}, "invalid_query"),
        ({}, None),
    ],
)
def test_a_bad_search_is_a_400(api, embedded, query, code):
    seed(api)
    status, body = api.call("GET", f"{A}/-/search", **query)
    assert status == 400, body
    if code:
        assert body["error"]["code"] == code


def test_a_missing_agent_and_another_tenant_are_404s(api, embedded):
    seed(api)
    status, body = api.call("GET", "/v1/agents/nobody/-/search", query="Berlin")
    assert (status, body["error"]["code"]) == (404, "agent_not_found")
    status, _ = api.as_tenant("globex").call("GET", f"{A}/-/search", query="Berlin")
    assert status == 404
