"""What the agent reads of its own declarations, on SQLite and on DynamoDB (moto): its kinds
and its labels' descriptions in the turn's instructions and in the tools' schemas, and `scope`
offered and accepted only where scope.write includes agent (the spec: "a description the
agent reads"; "scope is offered only when scope.write includes agent")."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
AGENT = {"role": "agent"}
LABELS = {
    "customer_id": {"number": 5, "description": "The customer the memory is about."},
    "release": {"number": 6},
}


def put(api, write=("session", "agent"), expect=201, **memory):
    body = {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["session", "agent"], "write": list(write)},
                "tools": ["add_memory", "read_memory"],
                **memory,
            }
        }
    }
    return api.ok("PUT", A, body, expect=expect)


def turn(api):
    session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    made = api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)
    return f"{A}/-/sessions/{session}/turns/{made['id']}"


def offered(api, path):
    return {t["name"]: t for t in api.ok("GET", f"{path}/instructions")["tools"]}


def test_the_instructions_name_the_kinds_and_each_labels_description(api):
    # Given an agent that declares its kinds and two labels, one described
    put(api, kinds=["decision", "fact"], labels=LABELS)
    # When a turn reads its instructions
    text = api.ok("GET", f"{turn(api)}/instructions")["instructions"]
    # Then they list the kinds and each label with its description
    assert "Memory kinds: each record is one of decision, fact." in text
    assert "- customer_id: The customer the memory is about." in text
    assert "- release\n" in text + "\n"


def test_the_add_memory_schema_offers_the_declared_kinds_and_labels(api):
    put(api, kinds=["decision", "fact"], labels=LABELS)
    tools = offered(api, turn(api))
    # Only what the manifest offers: read_memory and add_memory listed, delete_memory not
    assert sorted(tools) == ["add_memory", "memory", "read_memory", "search_memory"]
    add = tools["add_memory"]["inputSchema"]["properties"]
    assert add["kind"]["enum"] == ["decision", "fact"]
    assert add["kind"]["default"] == "fact"
    labels = add["labels"]
    assert labels["additionalProperties"] is False
    assert labels["properties"]["customer_id"]["description"] == "The customer the memory is about."
    assert set(labels["properties"]) == {"customer_id", "release"}
    search = tools["search_memory"]["inputSchema"]["properties"]
    assert search["kind"]["anyOf"][0]["enum"] == ["decision", "fact"]
    assert "customer_id" in search["labels"]["properties"]
    # Nothing to pin with (no harness.memory.pinned): pinned is not offered either
    assert "pinned" not in add


def test_scope_is_offered_only_when_scope_write_includes_agent(api):
    put(api, write=("session", "agent"))
    add = offered(api, turn(api))["add_memory"]
    assert add["inputSchema"]["properties"]["scope"]["enum"] == ["session", "agent"]
    assert "scope" in add["description"]
    put(api, write=("session",), expect=200)
    add = offered(api, turn(api))["add_memory"]
    assert "scope" not in add["inputSchema"]["properties"]
    assert "scope" not in add["description"]


def test_agent_scope_is_refused_when_scope_write_lacks_agent_and_nothing_is_written(api):
    # Given an agent that writes session scope only
    put(api, write=("session",))
    path = turn(api)
    # When the agent asks for agent scope
    status, body = api.call(
        "POST", f"{path}/tools/add_memory", {"summary": "x", "scope": "agent", "caller": AGENT}
    )
    # Then it is refused, saying what scope.write allows, and the commit writes nothing
    assert status == 403, body
    assert body["error"]["message"] == (
        "add_memory is refused: this agent's manifest does not allow agent scope: "
        'scope.write is ["session"]'
    )
    api.ok("POST", f"{path}/commit")
    assert api.ok("GET", f"{A}/-/records")["records"] == []


def test_session_scope_is_refused_when_scope_write_is_agent_only(api):
    put(api, write=("agent",))
    path = turn(api)
    add = offered(api, path)["add_memory"]["inputSchema"]["properties"]
    assert add["scope"]["enum"] == ["agent"] and add["scope"]["default"] == "agent"
    status, body = api.call(
        "POST", f"{path}/tools/add_memory", {"summary": "x", "scope": "session", "caller": AGENT}
    )
    assert status == 403
    assert 'does not allow session scope: scope.write is ["agent"]' in body["error"]["message"]
    # Without scope, the record takes agent scope
    status, body = api.call("POST", f"{path}/tools/add_memory", {"summary": "y", "caller": AGENT})
    assert body["output"]["memories"][0]["scope"] == "agent"


def test_a_record_names_the_services_execution_when_the_caller_names_none(api):
    # Given a call whose caller names no execution or invocation
    put(api)
    path = turn(api)
    made = api.ok(
        "POST", f"{path}/tools/add_memory", {"summary": "Ship on Tuesdays", "caller": AGENT}
    )["output"]["memories"][0]
    api.ok("POST", f"{path}/commit")
    # Then its provenance names the execution the service recorded the call under
    executions = api.ok("GET", path)["executions"]
    [call] = [e for e in executions if e["tool"] == "add_memory"]
    assert call["id"].startswith("exe_")
    assert made["provenance"]["execution"] == made["provenance"]["invocation"] == call["id"]
    stored = api.ok("GET", f"{A}/-/records/{made['id']}")
    assert stored["provenance"]["execution"] == call["id"]
    # And a caller's own ids are kept as given
    path = turn(api)
    caller = {**AGENT, "execution": "exe-harness-1", "invocation": "inv-1"}
    named = api.ok(
        "POST", f"{path}/tools/add_memory", {"summary": "Tag from main", "caller": caller}
    )["output"]["memories"][0]
    assert (named["provenance"]["execution"], named["provenance"]["invocation"]) == (
        "exe-harness-1",
        "inv-1",
    )


def test_the_agents_tools_are_offered_without_a_turn(api):
    # Given an agent whose manifest offers add_memory and writes session scope only
    put(api, write=("session",), labels=LABELS)
    # When an app asks what the agent's tools are
    tools = {t["name"]: t for t in api.ok("GET", f"{A}/-/tools")["tools"]}
    # Then they are a turn's: narrowed to the manifest, without scope, and no turn began
    assert sorted(tools) == ["add_memory", "memory", "read_memory", "search_memory"]
    assert "scope" not in tools["add_memory"]["inputSchema"]["properties"]
    assert tools["add_memory"]["writes"] is True and tools["read_memory"]["writes"] is False
    assert api.ok("GET", f"{A}/-/sessions")["sessions"] == []
    status, body = api.call("GET", "/v1/agents/teams/missing/-/tools")
    assert (status, body["error"]["code"]) == (404, "agent_not_found")
