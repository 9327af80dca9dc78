"""What OpenSearchIndex sends for what no local engine runs: the k-NN query, the k-NN mapping, and
k-NN scores turned back into cosines; and the lexical search's own BM25 (bm25.py: the statistics
and candidate requests, the re-score by hand-computed examples). Checked against a client that
records its calls."""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

import index_docs
from agent_memory.adapters.opensearch import OpenSearchIndex, connect
from agent_memory.adapters.opensearch.bm25 import query_words, word_clause
from agent_memory.adapters.opensearch.bodies import (
    cosine_from_score,
    document_source,
    index_body,
    innerproduct_score,
)
from agent_memory.domain.kernel.errors import StorageUnavailable
from agent_memory.domain.search.index import IndexFilter

pytestmark = pytest.mark.unit

opensearchpy = pytest.importorskip("opensearchpy")


class RecordingClient:
    """Just enough of opensearchpy.OpenSearch: records each call, answers with canned hits."""

    def __init__(
        self,
        hits: list[dict] | None = None,
        create_error: Exception | None = None,
        statistics: dict | None = None,
    ):
        self.calls: list[tuple[str, dict]] = []
        self.hits = hits or []
        self.create_error = create_error
        self.statistics = statistics  # the answer to a lexical search's statistics search
        self.indices = self

    def create(self, index: str, body: dict) -> dict:
        self.calls.append(("create", {"index": index, "body": body}))
        if self.create_error is not None:
            raise self.create_error
        return {"acknowledged": True}

    def put_mapping(self, index: str, body: dict) -> dict:
        self.calls.append(("put_mapping", {"index": index, "body": body}))
        return {"acknowledged": True}

    def search(self, index: str, body: dict) -> dict:
        verb = "statistics" if body.get("size") == 0 else "search"
        self.calls.append((verb, {"index": index, "body": body}))
        if verb == "statistics":
            assert self.statistics is not None, "no statistics were given to answer with"
            return self.statistics
        return {"hits": {"hits": self.hits}}


def hit(doc_id: str, score: float) -> dict:
    source = {"doc_id": doc_id, "created_at": "2025-01-01T00:00:00+00:00"}
    return {"_id": f"aoss-{doc_id}", "_score": score, "_source": source}


def knn_clause(client: RecordingClient) -> dict:
    [(verb, call)] = client.calls
    assert verb == "search"
    return call["body"]["query"]["knn"]["vector"]


def terms_in(clause: dict) -> list[dict]:
    """Every term/terms leaf under a filter clause, flattened."""
    found = []
    for key, value in clause.items():
        if key in ("term", "terms"):
            found.append({key: value})
        elif isinstance(value, dict):
            found += terms_in(value)
        elif isinstance(value, list):
            for item in value:
                found += terms_in(item)
    return found


# -- the k-NN query -------------------------------------------------------------------------


def test_the_knn_query_carries_the_vector_k_and_the_filter_inside_the_knn_clause():
    client = RecordingClient()
    index = OpenSearchIndex(client, "memories", 3)
    where = IndexFilter(session_id="s1", record_kinds=frozenset({"fact"}), labels={"team": "web"})
    index.vector("t1", "teams/web", [0.6, 0.8, 0.0], where, 7)
    knn = knn_clause(client)
    assert knn["vector"] == pytest.approx([0.6, 0.8, 0.0])
    assert knn["k"] == 7
    filters = terms_in(knn["filter"])
    for expected in (
        {"term": {"tenant": "t1"}},
        {"term": {"agent_id": "teams/web"}},
        {"term": {"kind": "record"}},
        {"term": {"session_id": "s1"}},
        {"terms": {"record_kind": ["fact"]}},
        {"term": {"labels": "team=web"}},
        {"term": {"preview": False}},
    ):
        assert expected in filters
    # Nothing filters outside the knn clause: a bool around it would post-filter the k results.
    assert list(client.calls[0][1]["body"]["query"]) == ["knn"]


def test_the_knn_query_skips_documents_of_other_models_when_the_model_is_known():
    client = RecordingClient()
    OpenSearchIndex(client, "memories", 2, model_id="titan-v2").vector(
        "t1", "a", [1.0, 0.0], IndexFilter(), 5
    )
    assert {"term": {"model_id": "titan-v2"}} in terms_in(knn_clause(client)["filter"])


def test_numpy_vectors_are_sent_as_plain_floats():
    np = pytest.importorskip("numpy")
    client = RecordingClient()
    OpenSearchIndex(client, "memories", 2).vector(
        "t1", "a", np.array([0.6, 0.8], dtype=np.float32), IndexFilter(), 5
    )
    sent = knn_clause(client)["vector"]
    assert all(type(x) is float for x in sent)


def test_knn_scores_come_back_as_cosines_best_first():
    client = RecordingClient(
        hits=[
            hit("close", innerproduct_score(0.9)),
            hit("orthogonal", innerproduct_score(0.0)),
            hit("opposite", innerproduct_score(-0.5)),
        ]
    )
    hits = OpenSearchIndex(client, "memories", 2).vector("t1", "a", [1.0, 0.0], IndexFilter(), 3)
    assert [h.id for h in hits] == ["close", "orthogonal", "opposite"]
    assert [h.score for h in hits] == pytest.approx([0.9, 0.0, -0.5])
    assert hits[0].created_at == datetime(2025, 1, 1, tzinfo=UTC)


def test_a_filter_that_can_match_nothing_sends_no_request():
    client = RecordingClient()
    index = OpenSearchIndex(client, "memories", 2)
    assert index.vector("t1", "a", [1.0, 0.0], IndexFilter(include_agent=False), 5) == []
    assert index.lexical("t1", "a", "deploy", IndexFilter(include_agent=False), 5) == []
    assert client.calls == []


def test_a_query_vector_of_the_wrong_size_is_refused():
    with pytest.raises(ValueError, match="dimensions"):
        OpenSearchIndex(RecordingClient(), "memories", 3).vector(
            "t1", "a", [1.0, 0.0], IndexFilter(), 5
        )


# -- score conversion -----------------------------------------------------------------------


@pytest.mark.parametrize("dot", [-1.0, -0.75, -0.5, -0.01, 0.0, 0.01, 0.3, 0.5, 0.99, 1.0])
def test_innerproduct_scores_round_trip_to_the_dot_product(dot):
    assert cosine_from_score(innerproduct_score(dot)) == pytest.approx(dot, abs=1e-12)


def test_innerproduct_scores_follow_the_k_nn_spaces_table():
    assert innerproduct_score(0.5) == 1.5  # dot >= 0: 1 + dot
    assert innerproduct_score(-0.5) == pytest.approx(1 / 1.5)  # dot < 0: 1 / (1 - dot)


@given(st.floats(min_value=-1.0, max_value=1.0, allow_nan=False))
def test_the_score_order_is_the_cosine_order(dot):
    other = max(-1.0, dot - 0.001)
    assert innerproduct_score(other) <= innerproduct_score(dot)
    assert math.isclose(cosine_from_score(innerproduct_score(dot)), dot, abs_tol=1e-9)


# -- the mapping ----------------------------------------------------------------------------


def test_the_mapping_has_a_knn_vector_of_the_configured_dimension_and_knn_on():
    client = RecordingClient()
    OpenSearchIndex(client, "memories", 1024).create_index()
    [(verb, call)] = client.calls
    assert (verb, call["index"]) == ("create", "memories")
    body = call["body"]
    assert body["settings"]["index"]["knn"] is True
    vector = body["mappings"]["properties"]["vector"]
    assert vector["type"] == "knn_vector"
    assert vector["dimension"] == 1024
    assert vector["method"]["engine"] == "faiss"
    assert vector["method"]["name"] == "hnsw"
    assert vector["method"]["space_type"] == "innerproduct"


def test_an_index_that_already_exists_only_gains_the_fields_added_since():
    exists = opensearchpy.exceptions.RequestError(
        400, "resource_already_exists_exception", {"error": {}}
    )
    client = RecordingClient(create_error=exists)
    OpenSearchIndex(client, "memories", 8).create_index()
    assert [verb for verb, _ in client.calls] == ["create", *["put_mapping"] * 3]
    mapped = index_body(8)["mappings"]["properties"]
    # One request a field, so one refused does not keep the others out.
    assert [call["body"]["properties"] for _, call in client.calls[1:]] == [
        {"context": mapped["context"]},
        {"length": mapped["length"]},
        {"words": mapped["words"]},
    ]


def test_history_context_words_are_kept_only_when_said_and_count_a_quarter_in_the_length():
    # A word is looked for in the document's text and in the words said before it.
    fields = word_clause(query_words("ship")[0])["bool"]["should"][0]["multi_match"]["fields"]
    assert fields == ["text", "text.english", "context", "context.english"]
    said = "turn 2, user: Tuesdays."  # turn, 2, user, tuesday: 4 words
    doc = index_docs.doc(
        "e1.1", said, tenant="acme", agent_id="a", kind="event", context="When do we ship?"
    )
    source = document_source("k", doc, None, None)
    assert source["context"] == "When do we ship?"
    assert source["length"] == 4 + 0.25 * 1  # `ship`; when, do, we are stopwords
    bare = dataclasses.replace(doc, context="")
    assert "context" not in document_source("k", bare, None, None)
    assert document_source("k", bare, None, None)["length"] == 4


def test_an_index_without_the_length_field_is_written_without_it():
    doc = index_docs.doc("r1", "deploy the api", tenant="acme", agent_id="a")
    assert "length" not in document_source("k", doc, None, None, with_length=False)


def test_text_not_in_ascii_keeps_the_domains_words_beside_it_and_english_keeps_none():
    # Given a Korean record, a German one and an English one
    korean = index_docs.doc("r1", "이건 한국어야", tenant="acme", agent_id="a")
    german = index_docs.doc("r2", "Grüße aus Zürich", tenant="acme", agent_id="a")
    english = index_docs.doc("r3", "deploy the api", tenant="acme", agent_id="a")

    # Then the first two carry their words as the domain splits them (pairs, folded), at
    # spaces only; the English one nothing new (its stored form is as it was)
    assert index_body(8)["mappings"]["properties"]["words"]["analyzer"] == "whitespace"
    assert (
        document_source("k", korean, None, None)["words"] == "이 건 이건 한 국 어 야 한국 국어 어야"
    )
    assert document_source("k", german, None, None)["words"] == "gruße aus zurich"
    assert "words" not in document_source("k", english, None, None)
    # And an index that refused the field is written without it
    assert "words" not in document_source("k", korean, None, None, with_words=False)
    # And a query's pair is looked for in them, beside the piece of the query it came from
    assert [word.word for word in query_words("한국어")] == ["한국", "국어"]
    assert word_clause(query_words("한국어")[0])["bool"]["should"][-1] == {
        "terms": {"words": ["한국", "한국어"]}
    }


def test_other_engine_errors_become_storage_unavailable():
    refused = opensearchpy.exceptions.AuthorizationException(403, "security_exception", {})
    with pytest.raises(StorageUnavailable) as raised:
        OpenSearchIndex(RecordingClient(create_error=refused), "memories", 8).create_index()
    assert raised.value.__cause__ is refused


def test_an_index_without_a_vector_size_cannot_be_created():
    with pytest.raises(ValueError):
        OpenSearchIndex(RecordingClient(), "memories", 0).create_index()


# -- building the AOSS client ---------------------------------------------------------------


def test_connect_signs_requests_for_aoss_over_https_without_sending_any(monkeypatch):
    requests = pytest.importorskip("requests")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    index = connect("https://abc123.eu-west-1.aoss.amazonaws.com", "eu-west-1", "memories", 1024)
    connection = index._client.transport.get_connection()
    assert connection.host == "https://abc123.eu-west-1.aoss.amazonaws.com:443"
    request = requests.Request("GET", f"{connection.host}/memories/_search").prepare()
    signed = connection.session.auth(request)
    assert "/eu-west-1/aoss/aws4_request" in signed.headers["Authorization"]


def test_importing_the_adapter_does_not_import_opensearch_py():
    code = "import sys, agent_memory.adapters.opensearch; sys.exit('opensearchpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_connecting_builds_no_client_until_the_first_request():
    code = (
        "import sys\n"
        "from agent_memory.adapters.opensearch import connect\n"
        "index = connect('https://abc123.eu-west-1.aoss.amazonaws.com', 'eu-west-1', 'm', 1024)\n"
        "sys.exit(sorted({'opensearchpy', 'boto3'} & set(sys.modules)) != [])"
    )
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("deploy", [("deploy", ("deploy",))]),
        ("Deploying deployed", [("deploy", ("deploying", "deployed"))]),
        ("what's the plan?", [("plan", ("plan", "plan?"))]),
        (
            "api.example.com",
            [
                ("api", ("api", "api.example.com")),
                ("exampl", ("example", "api.example.com")),
                ("com", ("com", "api.example.com")),
            ],
        ),
        ("Zürich", [("zurich", ("zurich", "Zürich"))]),
        ("the ( ) : what is it", []),
    ],
)
def test_a_lexical_query_ranks_by_the_embedded_index_words_found_beside_their_pieces(
    query: str, words: list[tuple[str, tuple[str, ...]]]
) -> None:
    # Ranked by the stems S3 Vectors' postings hold; found also by the whole piece, which the
    # engine's standard analyser keeps whole (`api.example.com`) or does not fold (`Zürich`).
    assert [(w.word, w.phrases) for w in query_words(query)] == words


# -- the lexical search's requests (bm25.py) ------------------------------------------------


def counted(total: int, average: float | None, *holding: int) -> dict:
    """A statistics search's answer: the agent's documents, their average length, and how many
    hold each query word."""
    buckets = {str(n): {"doc_count": count} for n, count in enumerate(holding)}
    return {
        "hits": {"total": {"value": total, "relation": "eq"}, "hits": []},
        "aggregations": {"average_length": {"value": average}, "holding": {"buckets": buckets}},
    }


def lexical_client(statistics: dict, hits: list[dict] | None = None) -> RecordingClient:
    return RecordingClient(hits=hits, statistics=statistics)


def test_a_lexical_search_asks_the_statistics_then_the_candidates_and_scores_them_itself():
    source = {"doc_id": "r1", "created_at": "2025-01-01T00:00:00+00:00", "text": "deploy the api"}
    # The engine's score is not used: the hit is scored again with the agent's statistics; its
    # 2 words (`the` is a stopword) are the average length, so the score is the IDF.
    client = lexical_client(
        counted(2, 2.0, 1), hits=[{"_id": "x", "_score": 99.0, "_source": source}]
    )
    where = IndexFilter(statuses=frozenset({"ACTIVE"}), labels={"team": "web"})

    [found] = OpenSearchIndex(client, "memories", 2).lexical("t1", "a", "deploy", where, 5)

    assert [verb for verb, _ in client.calls] == ["statistics", "search"]
    searched = client.calls[1][1]["body"]["query"]["bool"]["filter"]
    assert {"term": {"labels": "team=web"}} in searched
    idf = math.log(1 + 1.5 / 1.5)
    assert (found.id, found.score) == ("r1", pytest.approx(idf * 2.2 / (1 + 1.2)))


def test_a_lexical_search_no_document_of_the_agent_answers_asks_no_candidates():
    client = lexical_client(counted(3, 2.0, 0))

    assert (
        OpenSearchIndex(client, "memories", 2).lexical("t1", "a", "zebra", IndexFilter(), 5) == []
    )
    assert [verb for verb, _ in client.calls] == ["statistics"]


class Failing(RecordingClient):
    """Answers the statistics search with an error of the engine."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    def search(self, index: str, body: dict) -> dict:
        self.calls.append(("statistics" if body.get("size") == 0 else "search", body))
        raise self.error


def test_a_lexical_search_of_an_index_not_made_yet_finds_nothing():
    client = Failing(opensearchpy.exceptions.NotFoundError(404, "index_not_found_exception", {}))

    assert (
        OpenSearchIndex(client, "memories", 2).lexical("t1", "a", "deploy", IndexFilter(), 5) == []
    )
    assert [verb for verb, _ in client.calls] == ["statistics"]


@pytest.mark.parametrize(
    "error",
    [
        opensearchpy.exceptions.AuthorizationException(403, "security_exception", {}),
        opensearchpy.exceptions.TransportError(500, "search_phase_execution_exception", {}),
    ],
    ids=["refused", "failed"],
)
def test_a_statistics_search_refused_or_failed_is_storage_unavailable(error):
    client = Failing(error)

    with pytest.raises(StorageUnavailable) as raised:
        OpenSearchIndex(client, "memories", 2).lexical("t1", "a", "deploy", IndexFilter(), 5)
    assert raised.value.__cause__ is error
    assert [verb for verb, _ in client.calls] == ["statistics"]
