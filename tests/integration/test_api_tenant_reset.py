"""`DELETE /v1/tenant?confirm=NAME`: every agent of the tenant goes with all it owns; another
tenant keeps everything; a reset cut short is finished by the next; on both stores."""

import pytest

from agent_memory.domain.auth import ALL_SCOPES, Principal

pytestmark = pytest.mark.integration

MANIFEST = {"harness": {"memory": {"enabled": True, "tools": ["add_memory"]}}}


def fill(api, agent):
    base = f"/v1/agents/{agent}"
    api.ok("PUT", base, MANIFEST, expect=201)
    api.ok("PUT", f"{base}/-/memories/notes.md", {"content": "x\n"}, expect=201)
    api.ok("POST", f"{base}/-/sessions", {"id": "s1"}, expect=201)
    turn = api.ok("POST", f"{base}/-/sessions/s1/turns", {}, expect=201)["id"]
    path = f"{base}/-/sessions/s1/turns/{turn}"
    api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": "hi", "sequence": 1}]})
    api.ok("POST", f"{path}/tools/add_memory", {"summary": "s", "caller": {"role": "agent"}})
    api.ok("POST", f"{path}/commit")


def test_a_reset_deletes_every_agent_of_the_tenant_only(api):
    globex = api.as_tenant("globex")
    for agent in ("teams/a", "teams/b/c"):
        fill(api, agent)
    fill(globex, "teams/a")

    status, body = api.call("DELETE", "/v1/tenant", confirm="globex")
    assert (status, body["error"]["code"]) == (400, "confirmation_mismatch")
    writer = api.as_tenant("acme", scope="agents:read agents:write sessions:own")
    assert writer.call("DELETE", "/v1/tenant", confirm="acme")[0] == 403
    assert len(api.ok("GET", "/v1/agents")["agents"]) == 2

    assert api.ok("DELETE", "/v1/tenant", confirm="acme") == {"deletedAgents": 2, "done": True}
    assert api.ok("GET", "/v1/agents")["agents"] == []
    # The same id again starts from nothing: no record, memory, session or version is left.
    api.ok("PUT", "/v1/agents/teams/a", {"harness": {}}, expect=201)
    base = "/v1/agents/teams/a/-"
    assert api.ok("GET", f"{base}/records", status="all")["records"] == []
    assert api.ok("GET", f"{base}/memories")["memories"] == []
    assert api.ok("GET", f"{base}/memory-versions")["versions"] == []
    assert api.ok("GET", f"{base}/sessions")["sessions"] == []
    assert len(api.ok("GET", f"{base}/manifest-versions")["versions"]) == 1
    # globex keeps all it had; the reset is in acme's audit.
    assert len(globex.ok("GET", "/v1/agents/teams/a/-/records")["records"]) == 1
    resets = [e for e in api.ok("GET", "/v1/audit")["entries"] if e["method"] == "DELETE"]
    assert [(e["agentId"], e["route"]) for e in resets] == [(None, "DELETE /v1/tenant")]


def test_a_reset_cut_short_is_finished_by_the_next(api, services, store):
    for agent in ("teams/a", "teams/b", "teams/c"):
        fill(api, agent)
    if hasattr(store, "_items"):
        # DynamoDB: a delete that crashed after marking its head, and never came back.
        head = store._items.agent
        from agent_memory.adapters.dynamodb import keys

        head.key(keys.agents_pk("acme"), keys.agent_sk("teams/a")).update([head.deleting.set(True)])
        assert [a["id"] for a in api.ok("GET", "/v1/agents")["agents"]] == ["teams/b", "teams/c"]
    admin = Principal("acme", "u1", ALL_SCOPES)
    first = services.agents.reset_tenant(admin, "acme", seconds=0)  # out of time at once
    assert (first.deleted_agents, first.done) == (1, False)
    rest = services.agents.reset_tenant(admin, "acme", seconds=20)
    assert (rest.deleted_agents, rest.done) == (2, True)
    assert store.agent_ids("acme", 10) == []
