"""Event-driven ingestion: the same appends and commits as messages, applied idempotently."""

import json

import pytest

from agent_memory.adapters.sqs.ingestion import process_batch
from agent_memory.domain.kernel.errors import Conflict, InvalidRequest
from ingest_lines import one_turn

pytestmark = pytest.mark.integration

A = "teams/web/releases"
MESSAGES = [
    *one_turn(A, "chat-1", "t-1", "ship friday", started_by="trigger"),
    *one_turn(A, "chat-1", "t-2", "never mind", end="rollback"),
]


@pytest.fixture
def agent(api):
    api.ok("PUT", f"/v1/agents/{A}", {"harness": {"history": {"index": "messages"}}}, expect=201)
    return api


def history(api, session="chat-1"):
    return api.ok("GET", f"/v1/agents/{A}/-/sessions/{session}/history")["events"]


def test_messages_apply_once_however_often_they_arrive(agent, services, store):
    if type(store).__name__ == "DynamoStore":
        pytest.skip("history on DynamoDB is covered by the contract suite")
    outcomes = [services.ingest.apply("acme", m) for m in MESSAGES]
    assert outcomes == ["applied"] * 6
    again = [services.ingest.apply("acme", m) for m in MESSAGES]
    assert again == ["already applied"] * 6
    assert [e["text"] for e in history(agent)] == ["ship friday"]
    turns = agent.ok("GET", f"/v1/agents/{A}/-/sessions/chat-1")
    assert turns["turns"] == 2


@pytest.mark.parametrize(
    "message",
    [
        {"op": "explode", "agent": A, "session": "s", "turn": "t"},
        {"op": "begin", "agent": A},
        {"op": "events", "agent": A, "session": "s", "turn": "t", "events": []},
        # Without its sequence, a message delivered twice would keep its event twice.
        {
            "op": "events",
            "agent": A,
            "session": "s",
            "turn": "t",
            "events": [{"role": "user", "text": "hi"}],
        },
    ],
)
def test_a_malformed_message_is_refused(services, message):
    with pytest.raises(InvalidRequest) as caught:
        services.ingest.apply("acme", message)
    assert caught.value.code == "invalid_message"


def test_a_begin_naming_a_bad_turn_id_opens_no_session(agent, services):
    # Given a begin whose session is not there yet and whose turn id is no id
    message = {"op": "begin", "agent": A, "session": "fresh", "turn": "bad id/with slash"}
    # When it is applied, then it is refused
    with pytest.raises(InvalidRequest):
        services.ingest.apply("acme", message)
    # and the session it named was not opened for it
    agent.ok("GET", f"/v1/agents/{A}/-/sessions/fresh", expect=404)
    # while a good begin opens its session and begins its turn, once
    good = {**message, "turn": "t-1"}
    assert services.ingest.apply("acme", good) == "applied"
    assert services.ingest.apply("acme", good) == "already applied"
    assert agent.ok("GET", f"/v1/agents/{A}/-/sessions/fresh")["turns"] == 1


def sqs_event(*messages: tuple[str, str]) -> dict:
    """A FIFO queue's batch: (message group, body) each."""
    return {
        "Records": [
            {
                "messageId": f"m{i}",
                "receiptHandle": "r",
                "body": body,
                "attributes": {"MessageGroupId": group, "SequenceNumber": str(i)},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:ingest.fifo",
                "awsRegion": "us-east-1",
            }
            for i, (group, body) in enumerate(messages)
        ]
    }


def test_a_failed_message_holds_back_its_session_and_no_other(agent, services, store):
    if type(store).__name__ == "DynamoStore":
        pytest.skip("history on DynamoDB is covered by the contract suite")
    one = [("chat-1", json.dumps({"tenant": "acme", **m})) for m in MESSAGES[:3]]
    two = [
        ("chat-2", json.dumps({"tenant": "acme", **m, "session": "chat-2"})) for m in MESSAGES[:3]
    ]
    batch = [one[0], ("chat-1", "not json"), one[1], two[0], one[2], two[1], two[2]]
    result = process_batch(services.ingest, sqs_event(*batch))
    # The bad message fails, and so does what its session sent after it (m2, m4): applied
    # before it, the commit would end the turn without its events. chat-2 goes on.
    assert result == {"batchItemFailures": [{"itemIdentifier": f"m{i}"} for i in (1, 2, 4)]}
    assert [e["text"] for e in history(agent, "chat-2")] == ["ship friday"]
    assert history(agent) == []
    # Delivered again (the bad one gone to the dead-letter queue), in order: applied.
    assert process_batch(services.ingest, sqs_event(one[1], one[2])) == {"batchItemFailures": []}
    assert [e["text"] for e in history(agent)] == ["ship friday"]


def test_events_that_arrive_after_their_commit_fail_rather_than_vanish(agent, services, store):
    # A standard queue does not keep order: the commit may be applied before an events message
    # whose first delivery failed. It is no redelivery of something kept, so it fails (to the
    # dead-letter queue) instead of being taken as already applied.
    begin, events, commit = MESSAGES[:3]
    services.ingest.apply("acme", begin)
    services.ingest.apply("acme", commit)
    with pytest.raises(Conflict) as caught:
        services.ingest.apply("acme", events)
    assert caught.value.code == "turn_closed"


def test_what_the_queue_applies_joins_the_audit_trail_once(agent, services, store):
    # The queue's changes are audited as the API's are, by the queue's name; a message
    # delivered again changes nothing and adds no entry.
    from datetime import UTC, datetime

    batch = [("chat-1", json.dumps({"tenant": "acme", **m})) for m in MESSAGES[:3]]
    assert process_batch(services.ingest, sqs_event(*batch), None, services.audit) == {
        "batchItemFailures": []
    }
    process_batch(services.ingest, sqs_event(*batch), None, services.audit)  # delivered again
    entries = store.list_audit("acme", None, 100, A, "api:ingest-queue", datetime.now(UTC))
    assert [(e.method, e.route, e.target) for e in entries] == [
        ("SQS", "ingest begin", "sessions/chat-1/turns/t-1"),
        ("SQS", "ingest events", "sessions/chat-1/turns/t-1"),
        ("SQS", "ingest commit", "sessions/chat-1/turns/t-1"),
    ]
