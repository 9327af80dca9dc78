"""`memory.updated`: one for each call of a turn that changed memory, published at commit in
call order and kept in the session's record (its export), on both stores."""

import json

import pytest

from apiclient import http_event

pytestmark = pytest.mark.integration

TENANT, AGENT_ID = "acme", "teams/web/releases"
A = f"/v1/agents/{AGENT_ID}"
CALLER = {"role": "agent"}
MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "access": "read_write",
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "tools": ["add_memory", "read_memory", "delete_memory"],
        }
    }
}


class Turn:
    def __init__(self, api, session, **begin):
        self.api = api
        self.id = api.ok("POST", f"{A}/-/sessions/{session}/turns", begin, expect=201)["id"]
        self.path = f"{A}/-/sessions/{session}/turns/{self.id}"

    def tool(self, name, caller=CALLER, **args):
        status, body = self.api.call(
            "POST", f"{self.path}/tools/{name}", {**args, "caller": caller}
        )
        assert status == 200, (status, body)
        return body["output"]

    def end(self, how="commit"):
        return self.api.ok("POST", f"{self.path}/{how}")


@pytest.fixture
def agent(api):
    api.ok("PUT", A, MANIFEST, expect=201)
    return api


def session(api):
    return api.ok("POST", f"{A}/-/sessions", expect=201)["id"]


def heard(subscription):
    found = []
    while not subscription.queue.empty():
        found.append(subscription.queue.get_nowait()[1])
    return found


def exported(api, s):
    raw = api.handler(http_event("GET", f"{A}/-/sessions/{s}/export"), None)
    return [json.loads(line) for line in raw["body"].splitlines()]


def changes(event):
    return [c.model_dump(exclude_none=True) for c in event.changes]


def test_each_changing_call_publishes_its_own_event_in_call_order(agent, services):
    # Given a turn that adds a record, views its memories (no change), creates a file and
    # then deletes the record it added
    s = session(agent)
    on_session = services.events.subscribe(TENANT, AGENT_ID, s)
    on_agent = services.events.subscribe(TENANT, AGENT_ID, None)
    t = Turn(agent, s)
    record = t.tool("add_memory", summary="Releases ship on Tuesdays", scope="agent")
    t.tool("memory", command="view", path="/memories")
    t.tool("memory", command="create", path="/memories/notes.md", file_text="one\n")
    t.tool("delete_memory", id=record["memories"][0]["id"])
    rid = record["memories"][0]["id"]
    # Nothing is published before the commit: the writes are not visible yet.
    assert heard(on_session) == [] and heard(on_agent) == []

    # When the turn commits
    t.end()

    # Then each of the three calls that changed memory has its own memory.updated, in order,
    # a record change by id and a file change by path
    session_events = heard(on_session)
    assert [e.type for e in session_events] == ["memory.updated"] * 3
    assert [changes(e) for e in session_events] == [
        [{"id": rid, "operation": "create", "version": 1}],
        [{"path": "/memories/notes.md", "operation": "create", "version": 1}],
        [{"id": rid, "operation": "delete", "version": 2}],
    ]
    effect_ids = [e.effect_id for e in session_events]
    assert len(set(effect_ids)) == 3 and all(effect_ids)
    # And the agent's stream hears the same calls, each naming the session and the turn
    agent_events = heard(on_agent)
    assert [e.type for e in agent_events] == ["agent.memory_updated"] * 3
    assert [e.effect_id for e in agent_events] == effect_ids
    assert {(e.session_id, e.turn_id) for e in agent_events} == {(s, t.id)}

    # And the session's record keeps them: the turn and the export name the same calls
    kept = agent.ok("GET", t.path)["memoryUpdates"]
    assert [u["effectId"] for u in kept] == effect_ids
    assert kept[1]["changes"] == [
        {"path": "/memories/notes.md", "operation": "create", "version": 1}
    ]
    lines = exported(agent, s)
    updates = [line for line in lines if line["type"] == "memory.updated"]
    assert [(u["turnId"], u["effectId"]) for u in updates] == [(t.id, e) for e in effect_ids]
    assert updates[0]["changes"] == [{"id": rid, "operation": "create", "version": 1}]
    assert "memoryUpdates" not in lines[0]  # once in the export, as its own lines


def test_a_turn_that_changed_nothing_or_rolled_back_publishes_and_keeps_none(agent, services):
    # Given one turn that only reads and one that writes and then rolls back
    s = session(agent)
    on_session = services.events.subscribe(TENANT, AGENT_ID, s)
    reader = Turn(agent, s)
    reader.tool("memory", command="view", path="/memories")
    reader.end()
    undone = Turn(agent, s)
    undone.tool("add_memory", summary="A fact that never lands", scope="agent")
    undone.tool("memory", command="create", path="/memories/draft.md", file_text="draft\n")

    # When the second rolls back
    undone.end("rollback")

    # Then neither published anything, and the session's record holds no memory.updated
    assert heard(on_session) == []
    assert agent.ok("GET", reader.path)["memoryUpdates"] == []
    assert agent.ok("GET", undone.path)["memoryUpdates"] == []
    assert [line["type"] for line in exported(agent, s)] == ["turn", "turn"]


def test_a_replayed_turn_does_not_publish_again(agent, services):
    # Given a committed turn that added a record and wrote a file
    s = session(agent)
    first, second = {"role": "agent", "execution": "ex-1"}, {"role": "agent", "execution": "ex-2"}
    original = Turn(agent, s)
    original.tool("add_memory", first, summary="Tag releases from main", scope="agent")
    original.tool("memory", second, command="create", path="/memories/tags.md", file_text="v1\n")
    original.end()
    on_session = services.events.subscribe(TENANT, AGENT_ID, s)
    on_agent = services.events.subscribe(TENANT, AGENT_ID, None)

    # When a replay of it makes the same calls and commits
    replay = Turn(agent, s, replay_of=original.id)
    replay.tool("add_memory", first, summary="Tag releases from main", scope="agent")
    replay.tool("memory", second, command="create", path="/memories/tags.md", file_text="v1\n")
    replay.end()

    # Then nothing is published again and the replay keeps no memory.updated of its own
    assert heard(on_session) == [] and heard(on_agent) == []
    assert agent.ok("GET", replay.path)["memoryUpdates"] == []
