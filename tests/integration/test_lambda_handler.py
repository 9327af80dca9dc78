"""functions/api/app.lambda_handler, configured as template.yaml configures it, under moto."""

import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

EVENTS = Path(__file__).parents[2] / "events"


@dataclass
class Context:
    function_name: str = "ApiFunction"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:ApiFunction"
    aws_request_id: str = "req-1"


def event(name: str) -> dict:
    return json.loads((EVENTS / f"{name}.json").read_text())


@pytest.fixture
def handler(aws_env, monkeypatch):
    from moto import mock_aws

    from agent_memory.adapters.dynamodb import DynamoStore

    monkeypatch.setenv("AGENT_MEMORY_STORE", "dynamodb")
    monkeypatch.setenv("AGENT_MEMORY_TABLE_NAME", "agent-memory-lambda")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "agent-memory")
    with mock_aws():
        DynamoStore("agent-memory-lambda", "us-east-1").create_table()
        sys.modules.pop("app", None)  # a fresh cold start for each test
        module = importlib.import_module("app")
        yield module.lambda_handler
        sys.modules.pop("app", None)


def call(handler, evt):
    response = handler(evt, Context())
    return response["statusCode"], json.loads(response["body"]) if response["body"] else None


def test_the_sample_events_drive_the_function_end_to_end(handler):
    status, agent = call(handler, event("put_agent"))
    assert status == 201
    assert agent["id"] == "teams/web/releases"
    assert agent["manifest"]["harness"]["history"]["index"] == "messages_and_tools"

    status, got = call(handler, event("get_agent"))
    assert (status, got["manifestVersion"]) == (200, 1)

    status, listed = call(handler, event("list_agents"))
    assert status == 200 and [a["id"] for a in listed["agents"]] == ["teams/web/releases"]

    status, session = call(handler, event("create_session"))
    assert status == 201 and session["id"].startswith("ses_")

    status, document = call(handler, event("openapi"))
    assert status == 200 and document["openapi"].startswith("3.1")


def test_ids_of_one_to_five_segments_through_the_cloud_shape(handler):
    for segments in range(1, 6):
        agent_id = "/".join(f"seg{i}" for i in range(segments))
        evt = event("put_agent")
        evt["rawPath"] = evt["requestContext"]["http"]["path"] = f"/v1/agents/{agent_id}"
        evt["pathParameters"] = {"proxy": agent_id}
        status, agent = call(handler, evt)
        assert (status, agent["id"]) == (201, agent_id)
        evt = event("create_session")
        path = f"/v1/agents/{agent_id}/-/sessions"
        evt["rawPath"] = evt["requestContext"]["http"]["path"] = path
        status, session = call(handler, evt)
        assert (status, session["agentId"]) == (201, agent_id)


def test_a_request_without_claims_is_refused_and_stores_nothing(handler):
    evt = event("put_agent")
    del evt["requestContext"]["authorizer"]
    status, body = call(handler, evt)
    assert (status, body["error"]["code"]) == (401, "missing_tenant")
    status, _ = call(handler, event("get_agent"))
    assert status == 404


def test_a_bad_body_is_a_400_in_the_error_shape(handler):
    evt = event("put_agent")
    evt["body"] = json.dumps({"harness": {"memory": {"labels": {"a": {"number": 42}}}}})
    status, body = call(handler, evt)
    assert status == 400
    assert body["error"]["code"] == "invalid_request"
    assert "labels.a.number" in body["error"]["message"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ('{"harness":' * 100_000 + "{}" + "}" * 100_000, "body_too_deep"),
        (
            '{"harness": {"memory": {"search": {"max_results": ' + "9" * 5000 + "}}}}",
            "number_too_long",
        ),
        ("null", "invalid_request"),
    ],
)
def test_the_function_refuses_a_hostile_body_before_parsing_and_keeps_nothing(handler, body, code):
    evt = event("put_agent")
    evt["body"] = body
    status, answer = call(handler, evt)
    assert (status, answer["error"]["code"]) == (400, code)
    status, _ = call(handler, event("get_agent"))
    assert status == 404
