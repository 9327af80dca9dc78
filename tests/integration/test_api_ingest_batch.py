"""POST /v1/ingest: a batch of ingestion messages, each answered in its place; bad bodies are a
400 that changes nothing. GET .../-/index of a missing agent is a 404."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

A = "teams/web/releases"
BASE = {"agent": A, "session": "s-1", "turn": "t-1"}


@pytest.fixture
def agent(api):
    api.ok("PUT", f"/v1/agents/{A}", {"harness": {"history": {"index": "messages"}}}, expect=201)
    return api


def history(api) -> list[str]:
    status, body = api.call("GET", f"/v1/agents/{A}/-/sessions/s-1/history")
    return [e["text"] for e in body["events"]] if status == 200 else []


def test_a_batch_is_applied_in_order_and_each_message_answered(agent, store):
    messages = [
        {"op": "begin", **BASE},
        {"op": "events", **BASE, "events": [{"role": "user", "text": "ship", "sequence": 1}]},
        {"op": "commit", **BASE},
        {"op": "events", **BASE, "events": [{"role": "user", "text": "late", "sequence": 2}]},
    ]
    body = agent.ok("POST", "/v1/ingest", {"messages": messages})
    assert [r["status"] for r in body["results"]] == ["applied", "applied", "applied", "failed"]
    assert body["results"][3]["error"]["code"] == "turn_closed"
    assert (body["applied"], body["alreadyApplied"], body["failed"]) == (3, 0, 1)
    # Sent again: nothing changes, each says so.
    again = agent.ok("POST", "/v1/ingest", {"messages": messages[:3]})
    assert [r["status"] for r in again["results"]] == ["already applied"] * 3
    assert history(agent) == ["ship"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"messages": []},
        {"messages": [{"op": "begin", **BASE}] * 501},
        {"messages": ["not an object"]},
        {"messages": [{"op": "begin", **BASE}], "extra": 1},
        [{"op": "begin", **BASE}],
    ],
    ids=["no-messages", "empty", "too-many", "not-objects", "unknown-field", "not-an-object"],
)
def test_a_bad_batch_is_a_400_and_changes_nothing(agent, body):
    status, answer = agent.call("POST", "/v1/ingest", body)
    assert (status, answer["error"]["code"]) == (400, "invalid_request")
    assert agent.call("GET", f"/v1/agents/{A}/-/sessions/s-1")[0] == 404


def test_a_batch_needs_a_token_that_runs_sessions(agent):
    reader = agent.as_tenant("acme", scope="agents:read")
    status, _ = reader.call("POST", "/v1/ingest", {"messages": [{"op": "begin", **BASE}]})
    assert status == 403
    assert agent.call("GET", f"/v1/agents/{A}/-/sessions/s-1")[0] == 404


def test_the_index_status_of_a_missing_agent_is_a_404(agent):
    status, body = agent.call("GET", "/v1/agents/teams/nobody/-/index")
    assert (status, body["error"]["code"]) == (404, "agent_not_found")
