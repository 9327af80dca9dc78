"""HttpReranker against a real HTTP service on a loopback port (tests/rerank_server.py), in
both request and answer shapes of the common /rerank API."""

import pytest

from agent_memory.adapters.rerank.http import HttpReranker, read_scores, rerank_url
from agent_memory.domain.search import RerankFailed
from rerank_server import rerank_server

pytestmark = pytest.mark.unit

DOCS = ["no stripes", "a zebra", "zebra zebra"]


def test_documents_are_scored_in_their_order_cohere_style():
    with rerank_server() as server:
        # Given a service answering best first, as Cohere, Jina and vLLM do
        reranker = HttpReranker(base_url=server.url + "/v1", api_key="k-123")
        # When three documents are scored
        scores = reranker.score("bge-reranker-base", "stripes", DOCS)
    # Then each has its score, in the order sent, with the tokens the service reports
    assert list(scores.scores) == [0.0, 1.0, 2.0]
    assert scores.input_tokens == 6
    (sent,) = server.requests
    assert sent == {
        "path": "/v1/rerank",
        "model": "bge-reranker-base",
        "query": "stripes",
        "documents": DOCS,
        "top_n": 3,
    }
    assert server.headers[0]["Authorization"] == "Bearer k-123"


def test_text_embeddings_inference_is_sent_texts_and_its_bare_list_read():
    with rerank_server() as server:
        reranker = HttpReranker(base_url=server.url, field="texts")
        scores = reranker.score("ignored-by-tei", "stripes", DOCS)
    assert list(scores.scores) == [0.0, 1.0, 2.0]
    assert server.requests[0]["texts"] == DOCS and "documents" not in server.requests[0]
    assert "Authorization" not in server.headers[0]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({"fail": True}, "answered 503"),
        ({"garbage": True}, "not JSON"),
        ({"slow": 1.0}, "could not be reached"),
    ],
)
def test_a_failing_service_is_a_failed_rerank(setup, message):
    with rerank_server() as server:
        for name, value in setup.items():
            setattr(server, name, value)
        reranker = HttpReranker(base_url=server.url, timeout_seconds=0.2)
        with pytest.raises(RerankFailed, match=message):
            reranker.score("m", "q", DOCS)


def test_nothing_listening_is_a_failed_rerank():
    with rerank_server() as server:
        url = server.url
    with pytest.raises(RerankFailed, match="could not be reached"):
        HttpReranker(base_url=url, timeout_seconds=0.5).score("m", "q", DOCS)


@pytest.mark.parametrize(
    "answer",
    [
        {"results": [{"index": 0, "relevance_score": 1.0}]},  # a document left out
        {"results": [{"index": 5, "relevance_score": 1.0}]},  # no such document
        {"results": [{"index": 0, "relevance_score": "high"}]},
        {"results": [{"index": 0, "relevance_score": True}]},
        {"data": []},
        ["not an object"],
    ],
)
def test_a_malformed_answer_is_a_failed_rerank(answer):
    with pytest.raises(RerankFailed):
        read_scores(answer, 1 if "results" not in answer else 2)


def test_billed_tokens_are_read_where_cohere_puts_them():
    answer = {
        "results": [{"index": 0, "relevance_score": 0.5}],
        "meta": {"billed_units": {"input_tokens": 42}},
    }
    assert read_scores(answer, 1).input_tokens == 42


def test_the_rerank_path_is_added_once():
    assert rerank_url("http://h:8080/") == "http://h:8080/rerank"
    assert rerank_url("http://h/v1/rerank") == "http://h/v1/rerank"
