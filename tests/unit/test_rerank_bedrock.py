"""BedrockReranker against a real bedrock-agent-runtime client: botocore validates each request
against the service's own model (member names, required members, types: a malformed request
raises ParamValidationError before the Stubber answers), and the Stubber checks its answers
against the response shape."""

import boto3
import pytest
from botocore.stub import Stubber

from agent_memory.adapters.rerank.bedrock import BedrockReranker
from agent_memory.domain.search import RerankFailed

pytestmark = pytest.mark.unit

MODEL = "amazon.rerank-v1:0"


@pytest.fixture
def client(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return boto3.client("bedrock-agent-runtime", region_name="us-west-2")


@pytest.fixture
def sent(client):
    """The Rerank parameters the reranker sent, after botocore validated them."""
    params_sent = []
    client.meta.events.register(
        "provide-client-params.bedrock-agent-runtime.Rerank",
        lambda params, **_: params_sent.append(params),
    )
    return params_sent


def test_scores_come_back_in_the_documents_order(client, sent):
    # Given three documents, which Bedrock answers best first
    reranker = BedrockReranker(region="us-west-2", client=client)
    results = [
        {"index": 2, "relevanceScore": 0.9},
        {"index": 0, "relevanceScore": 0.5},
        {"index": 1, "relevanceScore": 0.1},
    ]
    with Stubber(client) as stub:
        stub.add_response("rerank", {"results": results})
        # When they are scored
        scores = reranker.score(MODEL, "where is the datacenter", ["a", "b", "c"])
        stub.assert_no_pending_responses()
    # Then each has its own score, in the order given
    assert list(scores.scores) == [0.5, 0.1, 0.9]
    # And the request asked for every document's score from the model's ARN in the region
    (params,) = sent
    config = params["rerankingConfiguration"]["bedrockRerankingConfiguration"]
    assert config["numberOfResults"] == 3
    assert config["modelConfiguration"]["modelArn"] == (
        "arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0"
    )
    assert [s["inlineDocumentSource"]["textDocument"]["text"] for s in params["sources"]] == [
        "a",
        "b",
        "c",
    ]


def test_a_model_given_as_an_arn_is_used_as_it_is(client, sent):
    arn = "arn:aws:bedrock:eu-central-1::foundation-model/cohere.rerank-v3-5:0"
    with Stubber(client) as stub:
        stub.add_response("rerank", {"results": [{"index": 0, "relevanceScore": 0.3}]})
        BedrockReranker(region="us-west-2", client=client).score(arn, "q", ["a"])
    config = sent[0]["rerankingConfiguration"]["bedrockRerankingConfiguration"]
    assert config["modelConfiguration"]["modelArn"] == arn


@pytest.mark.parametrize("code", ["ThrottlingException", "AccessDeniedException"])
def test_a_refusal_is_a_failed_rerank(client, code):
    with Stubber(client) as stub:
        stub.add_client_error("rerank", service_error_code=code, http_status_code=400)
        with pytest.raises(RerankFailed, match=code):
            BedrockReranker(region="us-west-2", client=client).score(MODEL, "q", ["a"])


def test_an_answer_missing_a_document_is_a_failed_rerank(client):
    with Stubber(client) as stub:
        stub.add_response("rerank", {"results": [{"index": 0, "relevanceScore": 0.3}]})
        with pytest.raises(RerankFailed, match="without a score"):
            BedrockReranker(region="us-west-2", client=client).score(MODEL, "q", ["a", "b"])


def test_a_model_id_without_a_region_cannot_name_its_arn(client):
    with pytest.raises(RerankFailed, match="AWS_REGION"):
        BedrockReranker(region=None, client=client).score(MODEL, "q", ["a"])


def test_the_api_function_may_rerank_with_the_regions_reranking_models_only():
    # The template's API function (which runs every search) may call Rerank, which takes no
    # resource, and invoke reranking models, not any other model of the region
    from test_console_template import load_template

    function = load_template()["Resources"]["ApiFunction"]["Properties"]
    statements = {
        s["Sid"]: s
        for policy in function["Policies"]
        if isinstance(policy, dict) and "Statement" in policy
        for s in policy["Statement"]
        if isinstance(s, dict) and "Sid" in s
    }
    assert (statements["Rerank"]["Action"], statements["Rerank"]["Resource"]) == (
        "bedrock:Rerank",
        "*",
    )
    models = statements["RerankModels"]
    assert models["Action"] == "bedrock:InvokeModel"
    assert models["Resource"] == (
        "Sub",
        "arn:${AWS::Partition}:bedrock:${AWS::Region}::foundation-model/*rerank*",
    )


def test_a_region_gives_the_deployment_bedrocks_reranker_built_on_its_first_search(monkeypatch):
    import sys

    from agent_memory import rerankers
    from agent_memory.settings import Settings

    monkeypatch.delitem(sys.modules, "agent_memory.adapters.rerank.bedrock", raising=False)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    stage = rerankers.build_rerank(Settings(store="dynamodb", table_name="t"))
    bedrock = stage._rerankers["bedrock"]
    # Offered, yet nothing of the adapter loaded until a search asks for it (a cold start's cost)
    assert bedrock.provider == "bedrock"
    assert "agent_memory.adapters.rerank.bedrock" not in sys.modules
    # Asked, it is built once and answers as the adapter does
    assert bedrock.model_id("cohere.rerank-v3-5:0") == "cohere.rerank-v3-5:0"
    assert type(bedrock._reranker()).__name__ == "BedrockReranker"
    assert bedrock._reranker() is bedrock._reranker()
