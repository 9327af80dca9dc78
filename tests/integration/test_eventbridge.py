"""EventBridgePublisher under moto: events reach a rule's SQS target; failures never raise."""

import json
from datetime import UTC, datetime

import boto3
import pytest
from botocore.exceptions import ClientError

from agent_memory.adapters.events.eventbridge import EventBridgePublisher
from agent_memory.domain.kernel.events import Change, Event

pytestmark = pytest.mark.integration


def event(n: int) -> Event:
    return Event(
        type="memory.updated",
        tenant="acme",
        agent_id="teams/web",
        session_id="ses_1",
        turn_id="trn_1",
        effect_id=f"eff_{n}",
        changes=[Change(id=f"rec_{n}", operation="create", version=1)],
        at=datetime(2026, 11, 30, tzinfo=UTC),
    )


def test_events_reach_the_bus_with_tenant_and_agent_in_the_detail(aws_env):
    from moto import mock_aws

    with mock_aws():
        events = boto3.client("events", region_name="us-east-1")
        sqs = boto3.client("sqs", region_name="us-east-1")
        events.create_event_bus(Name="memory")
        queue = sqs.create_queue(QueueName="sink")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        events.put_rule(
            Name="all", EventBusName="memory", EventPattern=json.dumps({"source": ["agent-memory"]})
        )
        events.put_targets(Rule="all", EventBusName="memory", Targets=[{"Id": "q", "Arn": arn}])

        # Twelve events: more than one PutEvents batch of ten.
        # No client given: the publisher makes its own on this first publish.
        EventBridgePublisher("memory", region="us-east-1").publish([event(n) for n in range(12)])

        bodies = []
        while True:
            got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)
            if not got.get("Messages"):
                break
            bodies += [json.loads(m["Body"]) for m in got["Messages"]]
        assert len(bodies) == 12
        assert {b["detail-type"] for b in bodies} == {"memory.updated"}
        detail = bodies[0]["detail"]
        assert (detail["tenant"], detail["agentId"], detail["sessionId"]) == (
            "acme",
            "teams/web",
            "ses_1",
        )
        assert {b["detail"]["effectId"] for b in bodies} == {f"eff_{n}" for n in range(12)}


class FailingClient:
    def put_events(self, **_):
        raise ClientError(
            {"Error": {"Code": "ThrottlingException", "Message": "slow"}}, "PutEvents"
        )


def test_a_delivery_failure_is_logged_not_raised(caplog):
    EventBridgePublisher("memory", client=FailingClient()).publish([event(1)])
    assert "events not delivered" in caplog.text
