"""`DELETE /v1/tenant?confirm=NAME`: every agent of the tenant goes with all it owns and its
limits go back to the deployment's; `DELETE /v1/tenant/agents` resets the agents alone; another
tenant keeps everything; a reset cut short is finished by the next; on both stores."""

import pytest

from agent_memory.domain.kernel.auth import ALL_SCOPES, Principal

pytestmark = pytest.mark.integration

MANIFEST = {"harness": {"memory": {"enabled": True, "tools": ["add_memory"]}}}
ONLY = {"read": ["agent"], "write": ["agent"]}


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

    assert api.ok("DELETE", "/v1/tenant", confirm="acme") == {
        "deletedAgents": 2,
        "done": True,
        "limitsReset": False,
    }
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


def test_an_agents_reset_keeps_the_limits_and_a_whole_reset_takes_them_back(api):
    # Given a tenant whose admin set its limits, with two agents (one with sessionless turns)
    api.ok("PUT", "/v1/tenant/limits", {"memoriesPerAgent": 3, "memoryBytes": 2048})
    fill(api, "teams/a")
    nightly = {"harness": {"memory": {"enabled": True, "tools": ["add_memory"], "scope": ONLY}}}
    api.ok("PUT", "/v1/agents/teams/n", nightly, expect=201)
    turn = api.ok("POST", "/v1/agents/teams/n/-/turns", {"started_by": "wake"}, expect=201)
    api.ok("POST", f"/v1/agents/teams/n/-/turns/{turn['id']}/commit")
    # When its agents alone are reset, with the wrong name first
    status, body = api.call("DELETE", "/v1/tenant/agents", confirm="globex")
    assert (status, body["error"]["code"]) == (400, "confirmation_mismatch")
    assert len(api.ok("GET", "/v1/agents")["agents"]) == 2
    writer = api.as_tenant("acme", scope="agents:read agents:write sessions:own")
    assert writer.call("DELETE", "/v1/tenant/agents", confirm="acme")[0] == 403
    done = api.ok("DELETE", "/v1/tenant/agents", confirm="acme")
    # Then every agent is gone and the limits stay, as does the audit
    assert done == {"deletedAgents": 2, "done": True, "limitsReset": False}
    assert api.ok("GET", "/v1/agents")["agents"] == []
    api.ok("PUT", "/v1/agents/teams/n", nightly, expect=201)
    assert api.ok("GET", "/v1/agents/teams/n/-/turns")["turns"] == []
    limits = api.ok("GET", "/v1/tenant/limits")
    assert (limits["memoriesPerAgent"], limits["memoryBytes"]) == (3, 2048)
    # When the whole tenant is reset
    fill(api, "teams/c")
    done = api.ok("DELETE", "/v1/tenant", confirm="acme")
    # Then the agents are gone and the limits are the deployment's again
    assert done == {"deletedAgents": 2, "done": True, "limitsReset": True}
    limits = api.ok("GET", "/v1/tenant/limits")
    assert (limits["memoriesPerAgent"], limits["memoryBytes"]) == (10000, 102400)
    routes = [e["route"] for e in api.ok("GET", "/v1/audit")["entries"] if e["method"] == "DELETE"]
    assert sorted(routes) == ["DELETE /v1/tenant", "DELETE /v1/tenant/agents"]
