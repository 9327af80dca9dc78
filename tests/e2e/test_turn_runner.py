"""TurnRunner, the one-turn-a-call mapping the integrations share: what fails leaves nothing and
ends its turn."""

from __future__ import annotations

import pytest

from agent_memory.client import ApiError
from agent_memory.integrations.turns import TurnRunner
from conftest import Server

pytestmark = pytest.mark.e2e

AGENT = "runner/agent"


def test_a_refused_commit_rolls_the_turn_back_and_is_raised(server: Server) -> None:
    client = server.client()
    client.put_agent(AGENT, {"harness": {"memory": {"enabled": True}}})
    runner = TurnRunner(client, AGENT)

    def write_then_lose_the_race(session: str, turn: str) -> None:
        client.call_tool(
            AGENT, session, turn, "memory", command="create", path="/memories/a.md", file_text="x"
        )
        # An app writes the same file before the turn commits: the commit must refuse.
        client.put_memory(AGENT, "a.md", "the app's")

    with pytest.raises(ApiError) as refused:
        runner.run(write_then_lose_the_race)
    assert (refused.value.status, refused.value.code) == (409, "memory_conflict")
    assert client.get_memory(AGENT, "a.md")["content"] == "the app's"
    [turn] = client.list_turns(AGENT, runner.session_id)["turns"]
    assert turn["status"] == "rolled_back"


def test_work_that_raises_rolls_back_and_a_read_can_leave_nothing(server: Server) -> None:
    client = server.client()
    client.put_agent(AGENT, {"harness": {"memory": {"enabled": True}}})
    runner = TurnRunner(client, AGENT, "named")

    def fail(session: str, turn: str) -> None:
        client.call_tool(
            AGENT, session, turn, "memory", command="create", path="/memories/b.md", file_text="y"
        )
        raise RuntimeError("the harness failed")

    with pytest.raises(RuntimeError):
        runner.run(fail)
    assert runner.run(lambda s, t: client.instructions(AGENT, s, t), commit=False)
    assert [t["status"] for t in client.list_turns(AGENT, "named")["turns"]] == [
        "rolled_back",
        "rolled_back",
    ]
    assert client.list_memories(AGENT)["memories"] == []


def test_a_sessions_own_token_joins_the_session_its_subject_started_and_no_other(
    server: Server,
) -> None:
    # Given a sessions:own token, which may not name a new session (the service names it)
    from agent_memory.client import Client
    from agent_memory.local.tokens import add_token

    app = server.client()
    app.put_agent(AGENT, {"harness": {"memory": {"enabled": True}}})
    token, _ = add_token(
        server.data_dir, "default", scopes=frozenset({"sessions:own"}), subject="alice"
    )
    alice = Client(server.url, token)
    started = alice.create_session(AGENT)["id"]
    app.create_session(AGENT, id="the-apps")

    # When a runner names her session, it joins it and runs its turns there
    runner = TurnRunner(alice, AGENT, started)
    assert runner.run(lambda s, t: s, commit=False) == started
    assert [t["status"] for t in alice.list_turns(AGENT, started)["turns"]] == ["rolled_back"]

    # And one naming a session she did not start is refused as if it did not exist
    with pytest.raises(ApiError) as refused:
        _ = TurnRunner(alice, AGENT, "the-apps").session_id
    assert (refused.value.status, refused.value.code) == (404, "session_not_found")
