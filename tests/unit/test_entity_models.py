"""The entity model's adapters and its configuration: Bedrock Converse against a real
bedrock-runtime client with botocore's Stubber (its own request validation), an OpenAI-compatible
server through a fake transport, keys normalised as the rules' keys, and the settings that turn
it on (a bad one refused at start)."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.stub import ANY, Stubber
from pydantic import ValidationError

from agent_memory.adapters.models.entities import (
    ENTITIES_SCHEMA,
    TOOL,
    BedrockEntityModel,
    OpenAIEntityModel,
)
from agent_memory.domain.search.entities import MAX_ENTITIES, entities, name_key
from agent_memory.domain.search.entity_model import (
    ENTITY_BATCH,
    ENTITY_INSTRUCTIONS,
    MODEL_TEXT_CHARS,
    EntityModelFailed,
    model_keys,
)
from agent_memory.entity_models import build_entity_model
from agent_memory.settings import Settings

pytestmark = pytest.mark.unit

MODEL_ID = "amazon.nova-micro-v1:0"
IN_REGION = {"AGENT_MEMORY_REGION": "eu-west-1"}


@pytest.fixture
def client(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return boto3.client("bedrock-runtime", region_name="us-east-1")


def converse(tool_input, tokens=(300, 40)):
    return {
        "output": {
            "message": {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "t1", "name": TOOL, "input": tool_input}}],
            }
        },
        "stopReason": "tool_use",
        "usage": {"inputTokens": tokens[0], "outputTokens": tokens[1], "totalTokens": 340},
        "metrics": {"latencyMs": 12},
    }


EXPECTED = {
    "modelId": MODEL_ID,
    "system": [{"text": ENTITY_INSTRUCTIONS}],
    "messages": ANY,
    "inferenceConfig": ANY,
    "toolConfig": {
        "tools": [
            {
                "toolSpec": {
                    "name": TOOL,
                    "description": ANY,
                    "inputSchema": {"json": ENTITIES_SCHEMA},
                }
            }
        ],
        "toolChoice": {"tool": {"name": TOOL}},
    },
}


def test_bedrock_names_each_text_in_one_call_normalised_as_the_rules_keys(client):
    # Given a Converse reply naming entities of two texts, one with a possessive and a title
    model = BedrockEntityModel(model_id=MODEL_ID, client=client)
    reply = {
        "texts": [
            {"text": 0, "entities": ["Caroline's", "pottery class", "the lake", "May"]},
            {"text": 1, "entities": ["Dr. Smith", "Caroline"]},
            {"text": 7, "entities": ["out of range"]},
        ]
    }
    with Stubber(client) as stub:
        stub.add_response("converse", converse(reply), EXPECTED)
        answer = model.extract(["Caroline's pottery class by the lake", "Dr. Smith met her"])
        stub.assert_no_pending_responses()

    # Then each text has its keys, in the rules' key form (a month is no key)
    assert answer.keys == [("caroline", "pottery class", "lake"), ("smith", "caroline")]
    assert (answer.model_id, answer.input_tokens, answer.output_tokens) == (MODEL_ID, 300, 40)
    assert entities("Caroline's pottery class")[0] == answer.keys[0][0]  # rule and model meet


def test_bedrock_throttling_and_a_missing_tool_call_are_failures_not_errors(client):
    model = BedrockEntityModel(model_id=MODEL_ID, client=client)
    with Stubber(client) as stub:
        stub.add_client_error("converse", "ThrottlingException", http_status_code=429)
        with pytest.raises(EntityModelFailed, match="ThrottlingException"):
            model.extract(["Caroline"])
        no_tool = converse({})
        no_tool["output"]["message"]["content"] = [{"text": "Caroline"}]
        stub.add_response("converse", no_tool, EXPECTED)
        with pytest.raises(EntityModelFailed, match="did not call"):
            model.extract(["Caroline"])
        stub.add_response("converse", converse({"wrong": []}), EXPECTED)
        with pytest.raises(EntityModelFailed, match="no list of texts"):
            model.extract(["Caroline"])


def test_texts_are_cut_batches_bounded_and_keys_capped():
    calls: list[bytes] = []

    def transport(url, headers, body, timeout):
        calls.append(body)
        sent = json.loads(body)["messages"][1]["content"]
        assert len(sent) < MODEL_TEXT_CHARS + 100  # one text, cut to what the model reads
        many = [f"Person{n}" for n in range(MAX_ENTITIES + 10)]
        content = json.dumps({"texts": [{"text": 0, "entities": many}]})
        return 200, json.dumps({"choices": [{"message": {"content": content}}]}).encode()

    model = OpenAIEntityModel(base_url="http://127.0.0.1:9", model="m", transport=transport)
    answer = model.extract(["x" * (MODEL_TEXT_CHARS * 3)])
    assert len(answer.keys[0]) == MAX_ENTITIES
    assert answer.input_tokens > 0 and answer.output_tokens > 0  # estimated: none reported
    with pytest.raises(ValueError, match="at most"):
        model.extract(["a"] * (ENTITY_BATCH + 1))


def test_openai_compatible_server_reply_and_its_failures():
    answers = iter(
        [
            (
                200,
                {
                    "choices": [
                        {
                            "message": {
                                "content": '```json\n{"texts": [{"text": 0, '
                                '"entities": ["Melanie", "camping"]}]}\n```'
                            }
                        }
                    ],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 9},
                },
            ),
            (429, {"error": "slow down"}),
            (200, {"choices": [{"message": {"content": "Melanie, camping"}}]}),
        ]
    )

    def transport(url, headers, body, timeout):
        assert url == "http://127.0.0.1:9/v1/chat/completions"
        assert headers["Authorization"] == "Bearer k"
        assert json.loads(body)["response_format"]["json_schema"]["schema"] == ENTITIES_SCHEMA
        status, reply = next(answers)
        return status, json.dumps(reply).encode()

    model = OpenAIEntityModel(
        base_url="http://127.0.0.1:9", model="m", api_key="k", transport=transport
    )
    answer = model.extract(["Melanie went camping"])
    assert answer.keys == [("melanie", "camping")]
    assert (answer.input_tokens, answer.output_tokens) == (50, 9)
    with pytest.raises(EntityModelFailed, match="429"):
        model.extract(["Melanie"])
    with pytest.raises(EntityModelFailed, match="not JSON"):
        model.extract(["Melanie"])


def test_a_models_names_key_as_the_rules_do():
    assert name_key("Caroline\u2019s") == "caroline"
    assert name_key("Mrs. Jones") == "jones"
    assert name_key("my pottery bowl") == "pottery bowl"
    for nothing in ("I", "the", "Thanks", "Monday", "2023", "", "a b c d e f", "x" * 65):
        assert name_key(nothing) is None, nothing
    assert model_keys(["Caroline", "caroline's", 7, None, "New York"]) == ("caroline", "new york")


def test_the_entity_model_is_chosen_by_settings_and_a_bad_choice_fails_at_start(tmp_path):
    # The default: the rules alone
    assert build_entity_model(Settings(data_dir=tmp_path)) is None

    bedrock = build_entity_model(Settings(data_dir=tmp_path, entity_model="bedrock", **IN_REGION))
    assert isinstance(bedrock, BedrockEntityModel)
    assert bedrock.model_id == Settings(data_dir=tmp_path).bedrock_model  # the extraction's
    openai = build_entity_model(
        Settings(
            data_dir=tmp_path,
            entity_model="openai",
            openai_base_url="http://127.0.0.1:8000",
            entity_model_id="qwen2.5-1.5b",
        )
    )
    assert isinstance(openai, OpenAIEntityModel) and openai.model_id == "qwen2.5-1.5b"

    # Bad values are refused with what to set, before anything is served
    with pytest.raises(ValidationError, match="entity_model"):
        Settings(data_dir=tmp_path, entity_model="spacy")
    with pytest.raises(ValidationError, match="AWS_REGION"):
        Settings(data_dir=tmp_path, entity_model="bedrock")
    with pytest.raises(ValidationError, match="OPENAI_BASE_URL"):
        Settings(data_dir=tmp_path, entity_model="openai", entity_model_id="m")
    with pytest.raises(ValidationError, match="entity_model_id"):
        Settings(data_dir=tmp_path, entity_model="bedrock", **IN_REGION, entity_model_id="")


def test_a_bad_environment_variable_stops_the_server_from_starting(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_ENTITY_MODEL", "gpt")
    with pytest.raises(ValidationError, match="'rules', 'bedrock' or 'openai'"):
        Settings(data_dir=tmp_path)


def test_the_template_turns_the_indexers_entity_model_on_with_its_grant_only_when_chosen(
    monkeypatch, tmp_path
):
    from test_console_template import load_template

    template = load_template()
    parameter = template["Parameters"]["EntityModel"]
    assert (parameter["Default"], parameter["AllowedValues"]) == ("rules", ["rules", "bedrock"])
    indexer = template["Resources"]["IndexerFunction"]["Properties"]
    assert indexer["Environment"]["Variables"] == {
        "AGENT_MEMORY_ENTITY_MODEL": ("Ref", "EntityModel"),
        "AGENT_MEMORY_ENTITY_MODEL_ID": ("Ref", "ExtractionModelId"),
    }
    # Converse through the extraction's inference profile, granted only under EntitiesByModel.
    granted = [
        s[1]
        for s in indexer["Policies"][0]["Statement"]
        if isinstance(s, tuple) and s[0] == "If" and s[1][0] == "EntitiesByModel"
    ]
    assert [g[1]["Sid"] for g in granted] == ["EntityModelProfile", "EntityModel"]
    assert all(g[1]["Action"] == "bedrock:InvokeModel" for g in granted)
    # The environment the template sets builds the Bedrock model (AWS_REGION is Lambda's own).
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AGENT_MEMORY_ENTITY_MODEL", "bedrock")
    monkeypatch.setenv(
        "AGENT_MEMORY_ENTITY_MODEL_ID", "us.anthropic.claude-haiku-4-5-20251001-v1:0"
    )
    chosen = Settings(data_dir=tmp_path)
    assert isinstance(build_entity_model(chosen), BedrockEntityModel)
