"""Event-driven ingestion: the same appends and commits as messages, applied idempotently."""

import json

import pytest
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)

from agent_memory.domain.errors import Conflict, InvalidRequest
from agent_memory.ingestion import apply_record

pytestmark = pytest.mark.integration

A = "teams/web/releases"
MESSAGES = [
    {"op": "begin", "agent": A, "session": "chat-1", "turn": "t-1", "started_by": "trigger"},
    {
        "op": "events",
        "agent": A,
        "session": "chat-1",
        "turn": "t-1",
        "events": [{"role": "user", "text": "ship friday", "sequence": 1}],
    },
    {"op": "commit", "agent": A, "session": "chat-1", "turn": "t-1"},
    {"op": "begin", "agent": A, "session": "chat-1", "turn": "t-2"},
    {
        "op": "events",
        "agent": A,
        "session": "chat-1",
        "turn": "t-2",
        "events": [{"role": "user", "text": "never mind", "sequence": 1}],
    },
    {"op": "rollback", "agent": A, "session": "chat-1", "turn": "t-2"},
]


@pytest.fixture
def agent(api):
    api.ok("PUT", f"/v1/agents/{A}", {"harness": {"history": {"index": "messages"}}}, expect=201)
    return api


def history(api):
    return api.ok("GET", f"/v1/agents/{A}/-/sessions/chat-1/history")["events"]


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


def test_an_sqs_batch_reports_only_the_failed_messages(agent, services, store):
    if type(store).__name__ == "DynamoStore":
        pytest.skip("history on DynamoDB is covered by the contract suite")
    bodies = [json.dumps({"tenant": "acme", **m}) for m in MESSAGES[:3]]
    bodies.insert(1, "not json")
    event = {
        "Records": [
            {
                "messageId": f"m{i}",
                "receiptHandle": "r",
                "body": body,
                "attributes": {},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:ingest",
                "awsRegion": "us-east-1",
            }
            for i, body in enumerate(bodies)
        ]
    }
    result = process_partial_response(
        event=event,
        record_handler=lambda record: apply_record(services.ingest, record),
        processor=BatchProcessor(event_type=EventType.SQS),
        context=None,
    )
    assert result == {"batchItemFailures": [{"itemIdentifier": "m1"}]}
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
