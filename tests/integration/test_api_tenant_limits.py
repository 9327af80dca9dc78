"""A tenant's own runtime limits (memoryBytes, memoriesPerAgent, expiredRetention): set by its
admin, enforced on every write path, on both stores."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
M = A + "/-/memories"
LIMITS = "/v1/tenant/limits"
DEFAULTS = {
    "memoryBytes": 102_400,
    "memoriesPerAgent": 10_000,
    "memoryIndexLines": 200,
    "memoryIndexBytes": 25_600,
    "expiredRetention": "P30D",
}


@pytest.fixture
def agent(api):
    api.ok("PUT", A, {"harness": {"memory": {"access": "read_write"}}}, expect=201)
    return api


def turn(api):
    session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    return api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)["id"], session


def tool(api, session, turn_id, **command):
    path = f"{A}/-/sessions/{session}/turns/{turn_id}/tools/memory"
    return api.call("POST", path, {**command, "caller": {"role": "agent"}})


def test_a_tenant_starts_with_the_deployments_limits(api):
    assert api.ok("GET", LIMITS) == DEFAULTS


def test_memories_per_agent_holds_for_the_api_the_tool_and_the_commit(agent):
    assert agent.ok("PUT", LIMITS, {"memoriesPerAgent": 2}) == {
        **DEFAULTS,
        "memoriesPerAgent": 2,
    }
    assert agent.ok("GET", LIMITS)["memoriesPerAgent"] == 2
    agent.ok("PUT", f"{M}/a.md", {"content": "a"}, expect=201)

    # A turn stages a second memory while there is room.
    turn_id, session = turn(agent)
    status, _ = tool(
        agent, session, turn_id, command="create", path="/memories/b.md", file_text="b"
    )
    assert status == 200
    # The API takes the last place meanwhile; a third is refused.
    agent.ok("PUT", f"{M}/c.md", {"content": "c"}, expect=201)
    status, body = agent.call("PUT", f"{M}/d.md", {"content": "d"})
    assert (status, body["error"]["code"]) == (409, "limit_exceeded")
    # The tool refuses with the table's text, and the commit refuses the staged one.
    status, body = tool(
        agent, session, turn_id, command="create", path="/memories/e.md", file_text="e"
    )
    assert (status, body["error"]["code"]) == (400, "memory.limit")
    assert body["error"]["message"] == (
        "Error: Cannot create more memories: this agent keeps at most 2. "
        "Delete or merge some first."
    )
    status, body = agent.call("POST", f"{A}/-/sessions/{session}/turns/{turn_id}/commit")
    assert (status, body["error"]["code"]) == (409, "limit_exceeded")
    paths = [m["path"] for m in agent.ok("GET", M)["memories"]]
    assert paths == ["/memories/a.md", "/memories/c.md"]


def test_memory_bytes_holds_for_the_api_and_the_tool(agent):
    agent.ok("PUT", LIMITS, {"memoryBytes": 10})
    agent.ok("PUT", f"{M}/ten.md", {"content": "x" * 10}, expect=201)
    status, body = agent.call("PUT", f"{M}/eleven.md", {"content": "x" * 11})
    assert (status, body["error"]["code"], body["error"]["limit"]) == (413, "memory_too_large", 10)
    turn_id, session = turn(agent)
    status, body = tool(
        agent, session, turn_id, command="create", path="/memories/t.md", file_text="x" * 11
    )
    assert (status, body["error"]["message"]) == (
        400,
        "Error: The file /memories/t.md would be 11 bytes; a memory file may be at most 10 bytes.",
    )


def test_a_field_left_out_keeps_its_value_and_other_tenants_keep_theirs(agent):
    agent.ok("PUT", LIMITS, {"memoryBytes": 500})
    agent.ok("PUT", LIMITS, {"memoriesPerAgent": 7})
    assert agent.ok("GET", LIMITS) == {**DEFAULTS, "memoryBytes": 500, "memoriesPerAgent": 7}
    other = agent.as_tenant("globex")
    assert other.ok("GET", LIMITS) == DEFAULTS
    other.ok("PUT", A, {"harness": {"memory": {}}}, expect=201)
    other.ok("PUT", f"{M}/big.md", {"content": "x" * 600}, expect=201)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"memoryBytes": 0},
        {"memoryBytes": -1},
        {"memoryBytes": 262_145},
        {"memoriesPerAgent": 1_000_001},
        {"memoriesPerAgent": "5"},
        {"memoriesPerAgent": True},
        {"memoriesPerAgent": 2.5},
        {"memoryBytes": 10, "other": 1},
        {"expiredRetention": "P1M"},
        {"expiredRetention": "30 days"},
        {"expiredRetention": "PT0S"},
        {"expiredRetention": 30},
        {"expiredRetention": "P1D", "memoryBytes": 0},
    ],
)
def test_bad_values_are_a_400_that_changes_nothing(api, body):
    api.ok("PUT", LIMITS, {"memoriesPerAgent": 9})
    status, answer = api.call("PUT", LIMITS, body)
    assert status == 400, answer
    assert api.ok("GET", LIMITS) == {**DEFAULTS, "memoriesPerAgent": 9}


def test_setting_limits_takes_admin(api):
    reader = api.as_tenant("acme", scope="agents:read")
    writer = api.as_tenant("acme", scope="agents:read agents:write sessions:own")
    for caller in (reader, writer):
        status, body = caller.call("PUT", LIMITS, {"memoriesPerAgent": 3})
        assert (status, body["error"]["code"]) == (403, "insufficient_scope")
    assert reader.ok("GET", LIMITS) == DEFAULTS
    assert api.as_tenant("acme", scope="admin").ok("PUT", LIMITS, {"memoriesPerAgent": 3})


def test_the_expired_retention_is_the_tenants_own(api):
    # Given a tenant that keeps expired records a week
    assert api.ok("PUT", LIMITS, {"expiredRetention": "P7D"}) == {
        **DEFAULTS,
        "expiredRetention": "P7D",
    }
    # Then a field left out keeps it, and other tenants keep the default
    api.ok("PUT", LIMITS, {"memoriesPerAgent": 4})
    assert api.ok("GET", LIMITS)["expiredRetention"] == "P7D"
    assert api.as_tenant("globex").ok("GET", LIMITS) == DEFAULTS
