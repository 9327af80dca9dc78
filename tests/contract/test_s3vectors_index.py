"""S3VectorsIndex under moto: S3 Vectors for meaning (QueryVectors answered by the exact-search
responder of tests/s3vectors_moto.py, whose docstring says what that leaves unverified) and word
postings in DynamoDB for words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import boto3
import pytest

import index_docs
from agent_memory.adapters.s3vectors.index import S3VectorsIndex, index_name
from agent_memory.domain.search.index import IndexDoc, IndexFilter
from agent_memory.domain.search.lexical import bm25
from s3vectors_moto import install_query_vectors, s3vectors_index

REGION = "us-east-1"  # the aws fixture's region (tests/contract/conftest.py)

T0 = datetime(2026, 11, 1, tzinfo=UTC)
BUCKET = "agent-memory-vectors"


@pytest.fixture
def index(s3vectors_search_index: S3VectorsIndex) -> S3VectorsIndex:
    return s3vectors_search_index


def unit(*xs: float) -> list[float]:
    norm = sum(x * x for x in xs) ** 0.5
    return [x / norm for x in xs]


def doc(doc_id: str, text: str, vector: list[float] | None = None, **fields: object) -> IndexDoc:
    """index_docs.doc made at this file's T0, with `vector` as test-model's meaning when given."""
    model = "test-model" if vector is not None else None
    values = {"created_at": T0, "vector": vector, "model_id": model, **fields}
    return index_docs.doc(doc_id, text, **values)


def ids(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.id for h in hits]


def stored_indexes() -> list[str]:
    client = boto3.client("s3vectors", region_name=REGION)
    return [i["indexName"] for i in client.list_indexes(vectorBucketName=BUCKET)["indexes"]]


def test_words_rank_by_bm25_as_the_embedded_index_scores_them(index: S3VectorsIndex) -> None:
    texts = [
        "deploy the web app on friday",
        "deploy deploy deploy: the release train",
        "lunch order for the team",
    ]
    index.upsert([doc(f"r{i}", t) for i, t in enumerate(texts)])

    hits = index.lexical("t1", "teams/web", "deploy release", IndexFilter(), 10)

    expected = bm25("deploy release", texts)
    assert ids(hits) == [f"r{s.index}" for s in expected]
    assert [h.score for h in hits] == pytest.approx([s.score for s in expected])
    assert index.lexical("t1", "teams/web", "the of", IndexFilter(), 10) == []  # stopwords only


def test_newer_document_wins_a_tie_of_words(index: S3VectorsIndex) -> None:
    index.upsert(
        [doc("old", "blue tent"), doc("new", "blue tent", created_at=T0 + timedelta(days=1))]
    )
    assert ids(index.lexical("t1", "teams/web", "tent", IndexFilter(), 10)) == ["new", "old"]


def test_vectors_nearest_first_with_cosine_scores(index: S3VectorsIndex) -> None:
    index.upsert(
        [
            doc("near", "a", unit(1, 0.1, 0, 0)),
            doc("far", "b", unit(0, 1, 0, 0)),
            doc("opposite", "c", unit(-1, 0, 0, 0)),
        ]
    )
    hits = index.vector("t1", "teams/web", unit(1, 0, 0, 0), IndexFilter(), 10)
    assert ids(hits) == ["near", "far", "opposite"]
    assert hits[0].score == pytest.approx(unit(1, 0.1, 0, 0)[0])
    assert hits[2].score == pytest.approx(-1.0)
    assert hits[0].created_at == T0


def test_the_agent_index_is_made_on_its_first_document(index: S3VectorsIndex) -> None:
    assert index.vector("t1", "teams/web", unit(1, 0, 0, 0), IndexFilter(), 5) == []
    index.upsert([doc("words-only", "no vector yet")])
    assert stored_indexes() == []  # words need no vector index
    index.upsert([doc("r1", "x", unit(1, 0, 0, 0))])
    index.upsert([doc("r2", "y", unit(0, 1, 0, 0))])
    assert stored_indexes() == [index_name("t1", "teams/web")]


def test_filters_apply_to_words_and_vectors_alike(index: S3VectorsIndex) -> None:
    v = unit(1, 0, 0, 0)
    index.upsert(
        [
            doc("agent", "plan", v, record_kind="fact", labels={"topic": "ops"}),
            doc("mine", "plan", v, scope="session", session_id="s1", record_kind="event"),
            doc("theirs", "plan", v, scope="session", session_id="s2"),
            doc("gone", "plan", v, status="DELETED"),
            doc("draft", "plan", v, preview=True),
            doc("file", "plan", v, kind="file"),
        ]
    )

    def both(where: IndexFilter) -> tuple[set[str], set[str]]:
        words = set(ids(index.lexical("t1", "teams/web", "plan", where, 20)))
        vectors = set(ids(index.vector("t1", "teams/web", v, where, 20)))
        return words, vectors

    cases = [
        (IndexFilter(), {"agent"}),
        (IndexFilter(session_id="s1"), {"agent", "mine"}),
        (IndexFilter(include_agent=False, include_all_sessions=True), {"mine", "theirs"}),
        (IndexFilter(statuses=frozenset({"ACTIVE", "DELETED"})), {"agent", "gone"}),
        (IndexFilter(session_id="s1", record_kinds=frozenset({"event"})), {"mine"}),
        (IndexFilter(labels={"topic": "ops"}), {"agent"}),
        (IndexFilter(labels={"topic": "dev"}), set()),
        (IndexFilter(ids=frozenset({"agent", "gone"})), {"agent"}),
        (IndexFilter(preview="only"), {"draft"}),
        (IndexFilter(preview="any"), {"agent", "draft"}),
        (IndexFilter(kind="file"), {"file"}),
        (IndexFilter(include_agent=False), set()),
    ]
    for where, expected in cases:
        assert both(where) == (expected, expected), where


def test_vectors_of_another_model_are_not_searched(aws: None, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    install_query_vectors(monkeypatch)
    with s3vectors_index(REGION, model_id="model-b") as other:
        other.upsert([doc("a", "x", unit(1, 0, 0, 0), model_id="model-a")])
        other.upsert([doc("b", "y", unit(1, 0, 0, 0), model_id="model-b")])
        assert ids(other.vector("t1", "teams/web", unit(1, 0, 0, 0), IndexFilter(), 5)) == ["b"]


def test_an_older_version_never_overwrites_a_newer_one(index: S3VectorsIndex) -> None:
    index.upsert([doc("r1", "kayak trip", unit(1, 0, 0, 0), version=3)])
    index.upsert([doc("r1", "canoe trip", unit(0, 1, 0, 0), version=2)])
    # In one batch too: the later version is kept whatever the order.
    index.upsert([doc("r2", "bike ride", version=5), doc("r2", "bus ride", version=4)])

    assert ids(index.lexical("t1", "teams/web", "kayak", IndexFilter(), 5)) == ["r1"]
    assert index.lexical("t1", "teams/web", "canoe", IndexFilter(), 5) == []
    assert ids(index.lexical("t1", "teams/web", "bike", IndexFilter(), 5)) == ["r2"]
    assert index.lexical("t1", "teams/web", "bus", IndexFilter(), 5) == []
    hit = index.vector("t1", "teams/web", unit(1, 0, 0, 0), IndexFilter(), 1)[0]
    assert (hit.id, hit.score) == ("r1", pytest.approx(1.0))


def test_a_new_version_without_a_vector_keeps_the_stored_one(index: S3VectorsIndex) -> None:
    index.upsert([doc("r1", "kayak trip", unit(1, 0, 0, 0))])
    index.upsert([doc("r1", "kayak trip", version=2, status="SUPERSEDED")])

    where = IndexFilter(statuses=frozenset({"SUPERSEDED"}))
    hits = index.vector("t1", "teams/web", unit(1, 0, 0, 0), where, 5)
    assert [(h.id, h.score) for h in hits] == [("r1", pytest.approx(1.0))]
    assert index.vector("t1", "teams/web", unit(1, 0, 0, 0), IndexFilter(), 5) == []


def test_a_new_version_replaces_the_words_of_the_old(index: S3VectorsIndex) -> None:
    index.upsert([doc("r1", "kayak trip"), doc("r2", "kayak lesson")])
    index.upsert([doc("r1", "canoe trip", version=2)])
    assert ids(index.lexical("t1", "teams/web", "kayak", IndexFilter(), 5)) == ["r2"]
    assert ids(index.lexical("t1", "teams/web", "canoe trip", IndexFilter(), 5)) == ["r1"]


def test_delete_removes_words_and_vectors(index: S3VectorsIndex) -> None:
    v = unit(1, 0, 0, 0)
    index.upsert([doc("r1", "kayak", v), doc("r2", "kayak", v), doc("r2", "kayak", kind="file")])
    index.delete("t1", "teams/web", "record", ["r1", "r1", "missing"])

    assert ids(index.lexical("t1", "teams/web", "kayak", IndexFilter(), 5)) == ["r2"]
    assert ids(index.vector("t1", "teams/web", v, IndexFilter(), 5)) == ["r2"]
    assert ids(index.lexical("t1", "teams/web", "kayak", IndexFilter(kind="file"), 5)) == ["r2"]
    index.delete("t1", "nobody", "record", ["r1"])  # no index, no postings: nothing to do


def test_delete_agent_removes_its_index_and_postings_only(index: S3VectorsIndex) -> None:
    v = unit(1, 0, 0, 0)
    index.upsert([doc("r1", "kayak", v), doc("f1", "kayak", v, kind="file")])
    index.upsert([doc("r1", "kayak", v, agent_id="teams/app")])

    index.delete_agent("t1", "teams/web")

    assert stored_indexes() == [index_name("t1", "teams/app")]
    for kind in ("record", "file"):
        where = IndexFilter(kind=kind)  # type: ignore[arg-type]
        assert index.lexical("t1", "teams/web", "kayak", where, 5) == []
        assert index.vector("t1", "teams/web", v, where, 5) == []
    assert ids(index.lexical("t1", "teams/app", "kayak", IndexFilter(), 5)) == ["r1"]
    index.delete_agent("t1", "teams/web")  # again: already gone is gone


def test_tenants_and_agents_never_see_each_other(index: S3VectorsIndex) -> None:
    v = unit(1, 0, 0, 0)
    index.upsert(
        [
            doc("a", "secret plan", v),
            doc("b", "secret plan", v, tenant="t2"),
            doc("c", "secret plan", v, agent_id="teams/web/releases"),
        ]
    )
    for tenant, agent, expected in (
        ("t1", "teams/web", ["a"]),
        ("t2", "teams/web", ["b"]),
        ("t1", "teams/web/releases", ["c"]),
        ("t2", "teams/web/releases", []),
    ):
        assert ids(index.lexical(tenant, agent, "secret", IndexFilter(), 5)) == expected
        assert ids(index.vector(tenant, agent, v, IndexFilter(), 5)) == expected


def test_limits_bound_both_halves_and_top_k_stays_within_100(index: S3VectorsIndex) -> None:
    docs = [
        doc(f"r{i:03d}", "kayak", unit(1, i / 200, 0, 0), created_at=T0 + timedelta(minutes=i))
        for i in range(120)
    ]
    index.upsert(docs)

    assert ids(index.lexical("t1", "teams/web", "kayak", IndexFilter(), 3)) == [
        "r119",
        "r118",
        "r117",
    ]
    assert ids(index.vector("t1", "teams/web", unit(1, 0, 0, 0), IndexFilter(), 2)) == [
        "r000",
        "r001",
    ]
    # QueryVectors takes topK <= 100: a larger limit gets the 100 nearest, not an error.
    assert len(index.vector("t1", "teams/web", unit(1, 0, 0, 0), IndexFilter(), 500)) == 100
    assert len(index.lexical("t1", "teams/web", "kayak", IndexFilter(), 500)) == 120
    assert index.lexical("t1", "teams/web", "kayak", IndexFilter(), 0) == []
    assert index.vector("t1", "teams/web", unit(1, 0, 0, 0), IndexFilter(), 0) == []


def test_a_vector_of_the_wrong_size_is_refused_and_changes_nothing(
    index: S3VectorsIndex,
) -> None:
    index.upsert([doc("r1", "kayak", unit(1, 0, 0, 0))])
    with pytest.raises(ValueError, match="3 dimensions"):
        index.upsert([doc("r1", "canoe", [1.0, 0.0, 0.0], version=2), doc("r2", "canoe")])
    with pytest.raises(ValueError, match="5 dimensions"):
        index.vector("t1", "teams/web", [1.0, 0, 0, 0, 0], IndexFilter(), 5)

    assert index.lexical("t1", "teams/web", "canoe", IndexFilter(), 5) == []
    assert ids(index.lexical("t1", "teams/web", "kayak", IndexFilter(), 5)) == ["r1"]
    assert ids(index.vector("t1", "teams/web", unit(1, 0, 0, 0), IndexFilter(), 5)) == ["r1"]


def test_calls_per_operation(index: S3VectorsIndex) -> None:
    from aws_meter import AwsMeter

    index.upsert([doc("r0", "kayak lesson", unit(0, 1, 0, 0))])  # the agent's index exists
    meter = AwsMeter("agent-memory-s3v")
    words = " ".join(f"word{i}" for i in range(30))  # 30 postings: two BatchWriteItem requests
    with meter.installed():
        index.upsert([doc("r1", words, unit(1, 0, 0, 0))])
        wrote = meter.take().calls
        index.lexical("t1", "teams/web", "kayak word1 word2", IndexFilter(), 5)
        lexical = meter.take().calls
        index.vector("t1", "teams/web", unit(1, 0, 0, 0), IndexFilter(), 5)
        vector = meter.take().calls

    assert {op: n for op, n in wrote.items() if "Vectors" in op or "Transact" in op} == {
        "dynamodb.TransactWriteItems": 1,
        "s3vectors.GetVectors": 1,
        "s3vectors.PutVectors": 1,
    }
    assert wrote["dynamodb.BatchWriteItem"] == 2
    assert lexical == {"dynamodb.GetItem": 1, "dynamodb.Query": 3}  # the totals, a Query a word
    assert vector == {"s3vectors.QueryVectors": 1}


def test_racing_writers_of_one_document_leave_the_newest_words(index: S3VectorsIndex) -> None:
    import threading

    versions = range(1, 5)
    start = threading.Barrier(len(versions))
    errors: list[BaseException] = []

    def write(version: int) -> None:
        start.wait()
        try:
            index.upsert([doc("r1", f"shared v{version}word", version=version)])
        except BaseException as exc:  # noqa: BLE001 - reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(v,)) for v in versions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert ids(index.lexical("t1", "teams/web", "v4word", IndexFilter(), 5)) == ["r1"]
    for older in ("v1word", "v2word", "v3word"):
        assert index.lexical("t1", "teams/web", older, IndexFilter(), 5) == []
    # The totals count the document once: its BM25 is a one-document index's.
    [hit] = index.lexical("t1", "teams/web", "shared", IndexFilter(), 5)
    assert hit.score == pytest.approx(bm25("shared", ["shared v4word"])[0].score)
