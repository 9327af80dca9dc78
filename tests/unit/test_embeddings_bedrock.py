"""BedrockEmbedder against a real bedrock-runtime client with botocore's Stubber."""

import io
import json
import subprocess
import sys

import boto3
import numpy as np
import pytest
from botocore.exceptions import ClientError
from botocore.response import StreamingBody
from botocore.stub import Stubber

from agent_memory.adapters.embeddings.bedrock import BedrockEmbedder, EmbeddingUnavailable
from agent_memory.domain.search.embeddings import dot

pytestmark = pytest.mark.unit


@pytest.fixture
def client(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return boto3.client("bedrock-runtime", region_name="us-east-1")


@pytest.fixture
def requests(client):
    """The InvokeModel parameters the embedder sent, in order."""
    sent = []
    client.meta.events.register(
        "provide-client-params.bedrock-runtime.InvokeModel",
        lambda params, **_: sent.append(params),
    )
    return sent


def titan_response(embedding, tokens):
    raw = json.dumps({"embedding": embedding, "inputTextTokenCount": tokens}).encode()
    return {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}


def test_one_request_per_text_with_its_text_and_dimensions(client, requests):
    embedder = BedrockEmbedder(client=client, dimensions=256, max_concurrency=1)
    with Stubber(client) as stub:
        stub.add_response("invoke_model", titan_response([1.0] + [0.0] * 255, 3))
        stub.add_response("invoke_model", titan_response([0.0, 1.0] + [0.0] * 254, 4))
        embedder.embed(["first text", "second text"])
        stub.assert_no_pending_responses()
    bodies = [json.loads(params["body"]) for params in requests]
    assert [(b["inputText"], b["dimensions"]) for b in bodies] == [
        ("first text", 256),
        ("second text", 256),
    ]
    assert {params["modelId"] for params in requests} == {"amazon.titan-embed-text-v2:0"}


def test_vectors_are_unit_float32_in_order_and_tokens_are_summed(client):
    embedder = BedrockEmbedder(client=client, dimensions=256, max_concurrency=1)
    with Stubber(client) as stub:
        stub.add_response("invoke_model", titan_response([3.0, 4.0] + [0.0] * 254, 5))
        stub.add_response("invoke_model", titan_response([0.0] * 255 + [2.0], 7))
        result = embedder.embed(["a", "b"])
    assert [(row.typecode, len(row)) for row in result.vectors] == [("f", 256), ("f", 256)]
    np.testing.assert_allclose(result.vectors[0][:2], [0.6, 0.8], rtol=1e-6)
    assert result.vectors[1][255] == pytest.approx(1.0)
    assert dot(result.vectors[0], result.vectors[0]) == pytest.approx(1.0, rel=1e-6)
    assert result.input_tokens == 12
    assert result.model_id == "amazon.titan-embed-text-v2:0"


def test_a_batch_runs_on_several_threads_and_every_text_is_embedded(client, requests):
    embedder = BedrockEmbedder(client=client, dimensions=512, max_concurrency=4)
    texts = [f"text {i}" for i in range(10)]
    with Stubber(client) as stub:
        for _ in texts:
            stub.add_response("invoke_model", titan_response([0.5] * 512, 2))
        result = embedder.embed(texts)
        stub.assert_no_pending_responses()
    assert [len(row) for row in result.vectors] == [512] * 10
    assert result.input_tokens == 20
    assert sorted(json.loads(p["body"])["inputText"] for p in requests) == sorted(texts)


def test_no_texts_make_no_calls(client):
    with Stubber(client):
        result = BedrockEmbedder(client=client).embed([])
    assert list(result.vectors) == []
    assert result.input_tokens == 0


@pytest.mark.parametrize("count", [1, 3])
def test_a_client_error_becomes_a_503_embedding_error(client, count):
    embedder = BedrockEmbedder(client=client, max_concurrency=2)
    with Stubber(client) as stub:
        for _ in range(count):
            stub.add_client_error(
                "invoke_model", service_error_code="ThrottlingException", http_status_code=429
            )
        with pytest.raises(EmbeddingUnavailable) as raised:
            embedder.embed(["x"] * count)
    assert raised.value.status == 503
    assert raised.value.to_body()["error"]["code"] == "embedding_unavailable"
    assert isinstance(raised.value.__cause__, ClientError)


def test_an_answer_of_the_wrong_size_is_a_503_not_a_short_vector(client):
    # Given an embedder asked for 256 dimensions, When the service answers with 255
    embedder = BedrockEmbedder(client=client, dimensions=256)
    with Stubber(client) as stub:
        stub.add_response("invoke_model", titan_response([1.0] * 255, 1))
        # Then it refuses the answer as the service being unavailable, not as a bug
        with pytest.raises(EmbeddingUnavailable, match="255 dimensions"):
            embedder.embed(["a"])


NO_NUMPY_PROBE = """
import io, json, sys
import boto3
from botocore.response import StreamingBody
from botocore.stub import Stubber
from agent_memory.adapters.embeddings.bedrock import BedrockEmbedder

client = boto3.client(
    "bedrock-runtime", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
)
raw = json.dumps({"embedding": [0.5] * 256, "inputTextTokenCount": 2}).encode()
with Stubber(client) as stub:
    stub.add_response("invoke_model", {"body": StreamingBody(io.BytesIO(raw), len(raw)),
                                       "contentType": "application/json"})
    vectors = BedrockEmbedder(client=client, dimensions=256).embed(["a"]).vectors
print(len(vectors[0]), "numpy" in sys.modules)
"""


def test_embedding_needs_no_numpy():
    # Given a fresh interpreter (the Lambda layer ships without numpy)
    # When the cloud embedder embeds a text
    out = subprocess.run(
        [sys.executable, "-c", NO_NUMPY_PROBE], capture_output=True, text=True, check=True
    )
    # Then it returns its vector and never imported numpy
    assert out.stdout.split() == ["256", "False"]


@pytest.mark.parametrize("dimensions", [0, 128, 384, 1536, "1024"])
def test_dimensions_titan_does_not_offer_are_refused(dimensions):
    with pytest.raises(ValueError, match="dimensions"):
        BedrockEmbedder(dimensions=dimensions)


def test_without_a_client_one_is_created_on_first_use_in_the_given_region(client, monkeypatch):
    created = []

    def spy_client(service, **kwargs):
        created.append((service, kwargs["region_name"]))
        return client

    monkeypatch.setattr(boto3, "client", spy_client)
    embedder = BedrockEmbedder(region="eu-west-1")
    assert created == []
    with Stubber(client) as stub:
        stub.add_response("invoke_model", titan_response([1.0] * 1024, 1))
        stub.add_response("invoke_model", titan_response([1.0] * 1024, 1))
        embedder.embed(["a"])
        embedder.embed(["b"])
    assert created == [("bedrock-runtime", "eu-west-1")]
