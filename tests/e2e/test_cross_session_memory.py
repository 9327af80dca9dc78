"""A newcomer's first hour, scripted against the embedded server: with the README quick start's
manifest, what session 1 learns reaches session 2, and what session 1 said holds only for itself
stays there. Post-turn extraction (the offline rule-based review, the embedded default) chooses
each fact's scope."""

from __future__ import annotations

import time
from typing import Any

import pytest

from agent_memory.client import Client
from conftest import Server

pytestmark = pytest.mark.e2e

AGENT = "teams/web/releases"
# The README quick start's manifest, word for word.
QUICK_START = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "tools": ["add_memory", "read_memory", "delete_memory"],
        },
        "history": {"index": "messages_and_tools"},
    }
}
DURABLE = ["User prefers dark mode in every tool", "User works at Acme Corp as a release engineer"]
SESSION_ONLY = "User is working on the 2.4 release notes"


def _reviewed(client: Client, session: str, turn: str) -> dict[str, Any]:
    """The turn's post-turn review once it is done (the server runs it in the background)."""
    deadline = time.monotonic() + 30
    while (review := client.get_turn(AGENT, session, turn)["extraction"])["status"] != "done":
        assert review["status"] in ("queued", "running"), review
        assert time.monotonic() < deadline, review
        time.sleep(0.05)
    return review


def test_what_session_one_learns_session_two_recalls(server: Server) -> None:
    client = server.client()
    client.put_agent(AGENT, QUICK_START)

    # Session 1: the user says two lasting facts and one that holds for this session only.
    first = client.create_session(AGENT)["id"]
    turn = client.begin_turn(AGENT, first)["id"]
    said = (
        "I prefer dark mode in every tool. I work at Acme Corp as a release engineer. "
        "For this session, I'm working on the 2.4 release notes."
    )
    events = [
        {"role": "user", "text": said},
        {"role": "assistant", "text": "Noted. Let's start with the release notes."},
    ]
    client.append_events(AGENT, first, turn, events)
    assert client.commit_turn(AGENT, first, turn)["extraction"]["status"] == "queued"
    review = _reviewed(client, first, turn)
    assert review["added"] == 3

    # Session 2: a new conversation recalls the lasting facts, not session 1's task.
    second = client.create_session(AGENT)["id"]
    later = client.begin_turn(AGENT, second)["id"]
    context = "What do you know about my tools, my work at Acme and the release notes?"
    recalled = client.recall(AGENT, second, later, context)["records"]
    assert sorted(r["summary"] for r in recalled) == sorted(DURABLE)
    assert all(r["scope"] == "agent" for r in recalled)

    # Session 1 still has its task, in its own scope.
    again = client.begin_turn(AGENT, first)["id"]
    mine = client.recall(AGENT, first, again, context)["records"]
    assert SESSION_ONLY in [r["summary"] for r in mine]
    [task] = [r for r in mine if r["summary"] == SESSION_ONLY]
    assert (task["scope"], task["sessionId"]) == ("session", first)
