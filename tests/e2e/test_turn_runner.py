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
