"""`GET /v1/audit`: every change, by whom, paged for the tenant's admin, on both stores."""

from datetime import UTC, datetime, timedelta

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web"


def test_every_change_is_audited_with_its_actor_and_target(api):
    alice = api.as_tenant("acme", sub="alice")
    bob = api.as_tenant("acme", sub="bob")
    alice.ok("PUT", A, {"harness": {}}, expect=201)
    bob.ok("PUT", f"{A}/-/memories/notes.md", {"content": "x\n"}, expect=201)
    alice.ok("GET", A)  # reads are not changes
    assert alice.call("PUT", f"{A}/-/memories/bad", {"content": "x"})[0] == 400  # nor refusals
    api.as_tenant("globex").ok("PUT", A, {"harness": {}}, expect=201)

    entries = api.ok("GET", "/v1/audit")["entries"]
    assert [(e["actor"], e["method"], e["agentId"], e["target"], e["status"]) for e in entries] == [
        ("api:alice", "PUT", "teams/web", "", 201),
        ("api:bob", "PUT", "teams/web", "memories/notes.md", 201),
    ]
    assert entries[1]["route"] == "PUT /v1/agents/teams/web/-/memories/notes.md"
    # Versions name the same actor.
    versions = api.ok("GET", f"{A}/-/memory-versions")["versions"]
    assert versions[0]["actor"] == "api:bob"

    assert api.ok("GET", "/v1/audit", actor="api:bob")["entries"] == entries[1:]
    assert api.ok("GET", "/v1/audit", agentId="teams/other")["entries"] == []
    later = (datetime.now(UTC) + timedelta(minutes=1)).isoformat()
    assert api.ok("GET", "/v1/audit", since=later)["entries"] == []
    earlier = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    assert api.ok("GET", "/v1/audit", since=earlier)["entries"] == entries

    first = api.ok("GET", "/v1/audit", limit=1)
    assert first["entries"] == entries[:1] and first["next"]
    assert api.ok("GET", "/v1/audit", limit=1, cursor=first["next"])["entries"] == entries[1:]


def test_the_audit_takes_admin_and_bad_filters_are_a_400(api):
    writer = api.as_tenant("acme", scope="agents:read agents:write sessions:own")
    status, body = writer.call("GET", "/v1/audit")
    assert (status, body["error"]["code"]) == (403, "insufficient_scope")
    for query in ({"since": "yesterday"}, {"since": "2026-01-01T00:00:00"}, {"agentId": "a//b"}):
        assert api.call("GET", "/v1/audit", **query)[0] == 400, query
    assert api.call("GET", "/v1/audit", cursor="!!")[0] == 400
