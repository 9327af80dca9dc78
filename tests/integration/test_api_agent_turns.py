"""Turns of an agent without a session (triggers, wakes), on SQLite and on DynamoDB (moto).

The spec: "An agent without a session has no session scope, so it must set both to
["agent"]", and "an agent without sessions has none [history]". Such a turn is begun at
`/v1/agents/{id}/-/turns` and has a session turn's routes without the session."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/nightly"
AGENT = {"role": "agent"}
AGENT_ONLY = {"read": ["agent"], "write": ["agent"]}


def put(api, scope=AGENT_ONLY, history="messages_and_tools", **memory):
    harness = {
        "memory": {
            "enabled": True,
            "scope": scope,
            "tools": ["add_memory", "read_memory", "delete_memory"],
            **memory,
        },
        "history": {"index": history},
    }
    return api.ok("PUT", A, {"harness": harness}, expect=201)


def begin(api, expect=201, **body):
    return api.ok("POST", f"{A}/-/turns", body or {"started_by": "trigger"}, expect=expect)


def path(turn):
    return f"{A}/-/turns/{turn['id']}"


def tool(api, turn, name, caller=AGENT, **args):
    status, body = api.call("POST", f"{path(turn)}/tools/{name}", {**args, "caller": caller})
    assert status == 200, (status, body)
    return body["output"]


def records(api):
    return api.ok("GET", f"{A}/-/records")["records"]


def test_an_agent_only_agent_runs_a_turn_without_a_session(api):
    # Given an agent that reads and writes agent scope alone
    put(api)
    # When a trigger begins a turn without a session and the agent remembers something
    turn = begin(api, started_by="trigger", trigger_run_id="run-7")
    assert (turn["sessionId"], turn["sequence"], turn["startedBy"]) == (None, 1, "trigger")
    assert turn["triggerRunId"] == "run-7"
    made = tool(api, turn, "add_memory", summary="Nightly builds run at 02:00")["memories"][0]
    # Then the record is agent scope and names no session; staged until the commit
    assert (made["scope"], made["sessionId"]) == ("agent", None)
    assert made["provenance"]["sessionId"] is None
    assert made["provenance"]["triggerRunId"] == "run-7"
    assert records(api) == []
    ended = api.ok("POST", f"{path(turn)}/commit")
    assert (ended["status"], ended["sessionId"]) == ("committed", None)
    assert [r["summary"] for r in records(api)] == ["Nightly builds run at 02:00"]
    # And a wake's next turn is the next in the agent's sequence, and recalls it
    wake = begin(api, started_by="wake")
    assert wake["sequence"] == 2
    recalled = api.ok("POST", f"{path(wake)}/recall", {"context": "when do nightly builds run"})
    assert [r["id"] for r in recalled["records"]] == [made["id"]]
    # And a session of the same agent reads it too (agent scope)
    listed = api.ok("GET", f"{A}/-/turns")["turns"]
    assert [t["id"] for t in listed] == [turn["id"], wake["id"]]
    detail = api.ok("GET", path(turn))
    assert [m["id"] for m in detail["memories"]] == [made["id"]]


def test_the_reserved_session_is_no_session_a_caller_sees(api):
    # Given an agent that has run a sessionless turn, and one session of its own
    put(api)
    api.ok("POST", f"{A}/-/turns/{begin(api)['id']}/commit")
    api.ok("POST", f"{A}/-/sessions", {"id": "s1"}, expect=201)
    # Then the listing shows the session alone, and the reserved one cannot be named
    assert [s["id"] for s in api.ok("GET", f"{A}/-/sessions")["sessions"]] == ["s1"]
    status, body = api.call("GET", f"{A}/-/sessions/-")
    assert (status, body["error"]["code"]) == (404, "session_not_found")
    status, body = api.call("POST", f"{A}/-/sessions/-/turns", {})
    assert (status, body["error"]["code"]) == (404, "session_not_found")
    status, body = api.call("POST", f"{A}/-/sessions", {"id": "-"})
    assert status == 400


@pytest.mark.parametrize(
    "scope",
    [
        {"read": ["session", "agent"], "write": ["session", "agent"]},
        {"read": ["agent"], "write": ["session", "agent"]},
        {"read": ["session", "agent"], "write": ["agent"]},
        {"read": ["session"], "write": ["session"]},
    ],
)
def test_a_turn_without_a_session_is_refused_unless_both_scopes_are_agent_only(api, scope):
    # Given an agent whose scopes are not both ["agent"]
    put(api, scope=scope)
    # When a trigger begins a turn without a session
    status, body = api.call("POST", f"{A}/-/turns", {"started_by": "trigger"})
    # Then it is refused, saying what the manifest must set, and no turn exists
    assert (status, body["error"]["code"]) == (409, "session_required"), body
    assert 'scope.read and scope.write both to ["agent"]' in body["error"]["message"]
    assert api.ok("GET", f"{A}/-/turns")["turns"] == []
    assert api.ok("GET", f"{A}/-/sessions")["sessions"] == []


def test_a_turn_without_a_session_of_a_missing_agent_is_404(api):
    status, body = api.call("POST", f"{A}/-/turns", {"started_by": "wake"})
    assert (status, body["error"]["code"]) == (404, "agent_not_found")


def test_a_turn_without_a_session_has_no_history(api):
    # Given an agent-only agent whose manifest indexes history
    put(api)
    first = begin(api)
    api.ok("POST", f"{path(first)}/events", {"events": [{"role": "user", "text": "deploy at 9"}]})
    api.ok("POST", f"{path(first)}/commit")
    second = begin(api)
    # When the turn calls search_history
    status, body = api.call(
        "POST", f"{path(second)}/tools/search_history", {"query": "deploy", "caller": AGENT}
    )
    # Then it is not offered: a turn without a session has no history
    assert (status, body["error"]["code"]) == (403, "tool_not_offered")
    assert "has no history" in body["error"]["message"]
    # And its events are found by no search of the agent's history
    assert api.ok("GET", f"{A}/-/history", query="deploy")["events"] == []
    # And its instructions do not tell it to search history
    text = api.ok("GET", f"{path(second)}/instructions")["instructions"]
    assert "search_history" not in text


def test_a_turn_without_a_session_refuses_session_scope_and_writes_nothing(api):
    put(api)
    turn = begin(api)
    status, body = api.call(
        "POST",
        f"{path(turn)}/tools/add_memory",
        {"summary": "x", "scope": "session", "caller": AGENT},
    )
    assert (status, body["error"]["code"]) == (403, "memory.forbidden")
    assert 'scope.write is ["agent"]' in body["error"]["message"]
    api.ok("POST", f"{path(turn)}/commit")
    assert records(api) == []


def test_a_rolled_back_turn_without_a_session_leaves_nothing(api):
    put(api)
    turn = begin(api)
    tool(api, turn, "add_memory", summary="Builds are slow on Fridays")
    tool(api, turn, "memory", command="create", path="/memories/nightly.md", file_text="x\n")
    ended = api.ok("POST", f"{path(turn)}/rollback")
    assert ended["status"] == "rolled_back"
    assert records(api) == []
    status, _ = api.call("GET", f"{A}/-/memories/nightly.md")
    assert status == 404
    # And an ended turn cannot change
    status, body = api.call("POST", f"{path(turn)}/commit")
    assert (status, body["error"]["code"]) == (409, "turn_closed")


def test_file_memory_works_in_a_turn_without_a_session(api):
    put(api)
    turn = begin(api)
    out = tool(api, turn, "memory", command="create", path="/memories/nightly.md", file_text="a\n")
    assert "created" in out["result"].lower()
    api.ok("POST", f"{path(turn)}/commit")
    assert api.ok("GET", f"{A}/-/memories/nightly.md")["content"] == "a\n"
    versions = api.ok("GET", f"{A}/-/memory-versions", path="/memories/nightly.md")["versions"]
    assert [(v["turnId"], v["sessionId"]) for v in versions] == [(turn["id"], None)]


def test_a_chosen_turn_id_and_a_replayed_call_apply_once(api):
    # Given a sessionless turn begun with a chosen id, whose call names its execution
    put(api)
    turn = begin(api, id="nightly-1", started_by="trigger")
    status, body = api.call("POST", f"{A}/-/turns", {"id": "nightly-1"})
    assert (status, body["error"]["code"]) == (409, "turn_exists")
    caller = {**AGENT, "execution": "exe-run-1"}
    tool(api, turn, "add_memory", caller=caller, summary="Cache the npm folder")
    api.ok("POST", f"{path(turn)}/commit")
    # When its replay calls again with the same execution
    replay = begin(api, replay_of="nightly-1", started_by="trigger")
    again = tool(api, replay, "add_memory", caller=caller, summary="Cache the npm folder")
    api.ok("POST", f"{path(replay)}/commit")
    # Then the write applied once
    assert [r["id"] for r in records(api)] == [again["memories"][0]["id"]]


def test_agent_turns_need_agents_write_to_run(api):
    put(api)
    own = api.as_tenant("acme", scope="sessions:own")
    status, body = own.call("POST", f"{A}/-/turns", {"started_by": "trigger"})
    assert (status, body["error"]["code"]) == (403, "insufficient_scope")
    reader = api.as_tenant("acme", scope="agents:read")
    turn = begin(api)
    assert reader.ok("GET", path(turn))["id"] == turn["id"]
    status, _ = reader.call("POST", f"{path(turn)}/commit")
    assert status == 403


def test_a_turn_without_a_session_is_reviewed_into_agent_memories(api, services):
    # Given an agent-only agent with post-turn extraction
    put(api, extraction={"every": "turn"})
    turn = begin(api, started_by="wake")
    api.ok(
        "POST",
        f"{path(turn)}/events",
        {"events": [{"role": "user", "text": "I live in Lisbon. What time is it?"}]},
    )
    committed = api.ok("POST", f"{path(turn)}/commit")
    assert committed["extraction"]["status"] == "queued"
    # When the review runs
    assert services.drain_extractions() == 1
    # Then its records are agent scope, name no session, and name the review's execution
    found = records(api)
    assert [r["summary"] for r in found] == ["User lives in Lisbon"]
    assert (found[0]["scope"], found[0]["sessionId"]) == ("agent", None)
    provenance = found[0]["provenance"]
    assert provenance["sessionId"] is None
    assert provenance["execution"] == provenance["invocation"] == f"extraction:{turn['id']}"


def test_a_commit_without_a_session_publishes_the_agents_event_alone(api, services):
    # Given a subscriber to the agent's stream
    put(api)
    agent_stream = services.events.subscribe("acme", "teams/web/nightly", None)
    turn = begin(api)
    made = tool(api, turn, "add_memory", summary="Nightly builds run at 02:00")["memories"][0]
    # When the sessionless turn commits
    api.ok("POST", f"{path(turn)}/commit")
    # Then the agent's stream hears one agent.memory_updated naming the turn and no session
    _, event = agent_stream.queue.get_nowait()
    assert (event.type, event.session_id, event.turn_id) == (
        "agent.memory_updated",
        None,
        turn["id"],
    )
    assert [c.id for c in event.changes] == [made["id"]]
    assert "sessionId" not in event.body()
    assert agent_stream.queue.empty()


def test_ingestion_cannot_name_the_reserved_session(api):
    # Given an agent-only agent that has run a sessionless turn (its reserved session exists)
    put(api)
    api.ok("POST", f"{path(begin(api))}/commit")
    agent = "teams/web/nightly"
    # When a batch begins, appends to or commits a turn in session "-"
    out = api.ok(
        "POST",
        "/v1/ingest",
        {
            "messages": [
                {"op": "begin", "agent": agent, "session": "-", "turn": "t1"},
                {"op": "session", "agent": agent, "session": "-"},
            ]
        },
    )
    # Then each fails as a session that does not exist, and no turn begins
    assert [r["status"] for r in out["results"]] == ["failed", "failed"]
    assert out["results"][0]["error"]["code"] == "session_not_found"
    assert len(api.ok("GET", f"{A}/-/turns")["turns"]) == 1
