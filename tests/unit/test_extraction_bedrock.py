"""BedrockModel against a real bedrock-runtime client with botocore's Stubber."""

import boto3
import pytest
from botocore.stub import ANY, Stubber

from agent_memory.adapters.models.bedrock import BedrockModel
from agent_memory.domain.extraction.model import (
    CANDIDATES_SCHEMA,
    DECISIONS_SCHEMA,
    Candidate,
    Existing,
    Message,
    ModelOutputInvalid,
    ModelUnavailable,
)
from agent_memory.domain.extraction.pipeline import DEFAULT_INSTRUCTIONS

pytestmark = pytest.mark.unit

MODEL_ID = "amazon.nova-lite-v1:0"
MESSAGES = [Message(role="user", text="I live in Paris.", id="D1:1", turn=1)]
CANDIDATE = {"summary": "User lives in Paris", "kind": "fact", "sources": ["D1:1"]}


@pytest.fixture
def client(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return boto3.client("bedrock-runtime", region_name="us-east-1")


def converse_response(tool, tool_input, tokens=(120, 30)):
    return {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"text": "Recording."},
                    {"toolUse": {"toolUseId": "t1", "name": tool, "input": tool_input}},
                ],
            }
        },
        "stopReason": "tool_use",
        "usage": {
            "inputTokens": tokens[0],
            "outputTokens": tokens[1],
            "totalTokens": sum(tokens),
        },
        "metrics": {"latencyMs": 10},
    }


def expected_params(tool, schema, system):
    return {
        "modelId": MODEL_ID,
        "system": [{"text": system}],
        "messages": ANY,
        "inferenceConfig": ANY,
        "toolConfig": {
            "tools": [
                {"toolSpec": {"name": tool, "description": ANY, "inputSchema": {"json": schema}}}
            ],
            "toolChoice": {"tool": {"name": tool}},
        },
    }


def test_propose_forces_the_schema_tool_and_reads_its_input_and_usage(client):
    model = BedrockModel(model_id=MODEL_ID, client=client)
    tool = "record_memory_candidates"
    with Stubber(client) as stub:
        stub.add_response(
            "converse",
            converse_response(tool, {"candidates": [CANDIDATE]}),
            expected_params(tool, CANDIDATES_SCHEMA, "keep facts"),
        )
        result = model.propose(MESSAGES, "keep facts", ["fact"], {})
        stub.assert_no_pending_responses()
    assert result.value == [Candidate(**CANDIDATE)]
    [usage] = result.usage
    assert (usage.model_id, usage.input_tokens, usage.output_tokens) == (MODEL_ID, 120, 30)


def test_blank_instructions_send_the_default_ones(client):
    model = BedrockModel(model_id=MODEL_ID, client=client)
    tool = "record_memory_candidates"
    with Stubber(client) as stub:
        stub.add_response(
            "converse",
            converse_response(tool, {"candidates": []}),
            expected_params(tool, CANDIDATES_SCHEMA, DEFAULT_INSTRUCTIONS),
        )
        assert model.propose(MESSAGES, "  ", ["fact"], {}).value == []


def test_decide_is_one_call(client):
    model = BedrockModel(model_id=MODEL_ID, client=client)
    tool = "record_memory_decisions"
    decisions = {
        "decisions": [{"candidate": 0, "action": "skip", "target": "m1", "reason": "restated"}]
    }
    with Stubber(client) as stub:
        stub.add_response(
            "converse",
            converse_response(tool, decisions, (50, 9)),
            expected_params(tool, DECISIONS_SCHEMA, ANY),
        )
        result = model.decide(
            [Candidate(**CANDIDATE)],
            {0: [Existing(id="m1", summary="User lives in Paris", kind="fact")]},
        )
        stub.assert_no_pending_responses()
    assert [(d.action, d.target) for d in result.value] == [("skip", "m1")]
    assert result.input_tokens == 50


def test_a_client_error_is_model_unavailable(client):
    model = BedrockModel(model_id=MODEL_ID, client=client)
    with Stubber(client) as stub:
        stub.add_client_error(
            "converse",
            service_error_code="ThrottlingException",
            service_message="Too many requests",
            http_status_code=429,
        )
        with pytest.raises(ModelUnavailable) as raised:
            model.propose(MESSAGES, "", ["fact"], {})
    assert raised.value.status == 503
    assert raised.value.code == "model_unavailable"
    assert "ThrottlingException" in raised.value.message


def test_a_tool_input_off_the_schema_is_model_output_invalid(client):
    model = BedrockModel(model_id=MODEL_ID, client=client)
    tool = "record_memory_candidates"
    with Stubber(client) as stub:
        stub.add_response("converse", converse_response(tool, {"candidates": [{"kind": "fact"}]}))
        with pytest.raises(ModelOutputInvalid):
            model.propose(MESSAGES, "", ["fact"], {})


def test_a_reply_without_the_tool_call_is_model_output_invalid(client):
    model = BedrockModel(model_id=MODEL_ID, client=client)
    response = converse_response("other_tool", {})
    with Stubber(client) as stub:
        stub.add_response("converse", response)
        with pytest.raises(ModelOutputInvalid) as raised:
            model.propose(MESSAGES, "", ["fact"], {})
    assert "did not call record_memory_candidates" in raised.value.message


def test_the_client_is_created_lazily_in_the_region(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    created = []
    real = boto3.client
    monkeypatch.setattr(boto3, "client", lambda *a, **k: created.append(a) or real(*a, **k))
    model = BedrockModel(region="eu-west-1")
    assert created == []
    assert model.client.meta.region_name == "eu-west-1"
    assert model.client is model.client
