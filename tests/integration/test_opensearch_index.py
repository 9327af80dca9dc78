"""OpenSearchIndex against a real HTTP engine: osmem-server, an in-memory OpenSearch-compatible
server from PyPI, started as a subprocess on a loopback port for this module.

What every SearchIndex adapter promises runs in tests/contract/test_search_index.py, on this
engine too. Here: what is OpenSearch's own (the mapping, the stored copies of a document and
their sweeping, errors, an index made by an earlier version). osmem-server has no k-NN; the k-NN
request bodies are checked in tests/unit/test_opensearch_bodies.py.
"""

from __future__ import annotations

import socket
import uuid

import pytest

from agent_memory.adapters.opensearch import OpenSearchIndex
from agent_memory.adapters.opensearch.bodies import index_body
from agent_memory.domain.kernel.errors import StorageUnavailable
from agent_memory.domain.search.index import IndexFilter
from index_docs import doc

pytestmark = pytest.mark.integration

osmem_server = pytest.importorskip(
    "osmem_server", reason="osmem-server (dev extra) is not installed for this platform"
)
opensearchpy = pytest.importorskip("opensearchpy")

DIMS = 3


@pytest.fixture(scope="module")
def engine():
    # Port 0: the server binds a free loopback port; it exits if this process goes away
    # (--parent-pid), so no test run leaves it behind.
    from cloud_shape import osmem_engine

    with osmem_engine() as client:
        yield client


@pytest.fixture
def index(engine):
    name = f"memories-{uuid.uuid4().hex[:12]}"
    adapter = OpenSearchIndex(engine, name, DIMS, refresh=True)
    adapter.create_index()
    yield adapter
    engine.indices.delete(index=name, ignore_unavailable=True)


def ids(hits) -> list[str]:
    return [hit.id for hit in hits]


def stored(engine, index: OpenSearchIndex, doc_id: str) -> list[dict]:
    response = engine.search(
        index=index.index_name, body={"query": {"term": {"doc_id": doc_id}}, "size": 50}
    )
    return [hit["_source"] for hit in response["hits"]["hits"]]


# -- the index ------------------------------------------------------------------------------


def test_create_index_is_idempotent_and_maps_vectors_and_keywords(engine, index):
    index.create_index()
    index.create_index()
    mapping = engine.indices.get_mapping(index=index.index_name)[index.index_name]["mappings"]
    fields = mapping["properties"]
    assert fields["vector"]["type"] == "knn_vector"
    assert fields["vector"]["dimension"] == DIMS
    assert {fields[name]["type"] for name in ("tenant", "agent_id", "doc_id", "labels")} == {
        "keyword"
    }
    assert mapping["dynamic"] == "strict"


def test_documents_with_vectors_are_stored_with_their_model(engine, index):
    index.upsert([doc("r1", "alpha", vector=[0.6, 0.8, 0.0], model_id="m1")])
    [source] = stored(engine, index, "r1")
    assert source["vector"] == pytest.approx([0.6, 0.8, 0.0])
    assert source["model_id"] == "m1"


def test_searching_an_index_that_does_not_exist_finds_nothing(engine):
    missing = OpenSearchIndex(engine, f"missing-{uuid.uuid4().hex[:8]}", DIMS, refresh=True)
    assert missing.lexical("t1", "teams/web", "anything", IndexFilter(), 10) == []
    missing.delete("t1", "teams/web", "record", ["r1"])
    missing.delete_agent("t1", "teams/web")


def test_an_engine_that_does_not_answer_is_storage_unavailable():
    with socket.socket() as sock:  # a loopback port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = opensearchpy.OpenSearch(hosts=[f"http://127.0.0.1:{port}"], max_retries=0)
    adapter = OpenSearchIndex(client, "memories", DIMS)
    with pytest.raises(StorageUnavailable) as raised:
        adapter.lexical("t1", "teams/web", "deploy", IndexFilter(), 5)
    assert isinstance(raised.value.__cause__, opensearchpy.exceptions.ConnectionError)
    with pytest.raises(StorageUnavailable):
        adapter.upsert([doc("r1", "deploy")])


# -- copies -------------------------------------------------------------------------------
# What the port promises (versions, filters, isolation) is in tests/contract/test_search_index.py;
# here, how OpenSearchIndex keeps it: one stored copy of each document, swept on each write.


def test_the_same_id_under_two_tenants_is_two_copies(engine, index):
    index.upsert([doc("r1", "alpha"), doc("r1", "beta", tenant="t2", version=5)])
    assert sorted(s["key"] for s in stored(engine, index, "r1")) == [
        "t1|teams/web|record|r1",
        "t2|teams/web|record|r1",
    ]


def test_a_newer_version_sweeps_the_older_copy_and_an_older_one_writes_none(engine, index):
    index.upsert([doc("r1", "alpha", version=1)])
    index.upsert([doc("r1", "beta", version=3, status="SUPERSEDED")])
    assert [s["version"] for s in stored(engine, index, "r1")] == [3]
    index.upsert([doc("r1", "alpha", version=1), doc("r1", "gamma", version=2)])
    assert [(s["version"], s["text"]) for s in stored(engine, index, "r1")] == [(3, "beta")]


def test_writing_the_same_version_again_keeps_one_copy(engine, index):
    first = doc("r1", "alpha", version=1)
    index.upsert([first])
    [before] = stored(engine, index, "r1")
    index.upsert([first])
    assert stored(engine, index, "r1") == [before]  # not rewritten: same copy id
    index.upsert([doc("r1", "alpha corrected", version=1)])
    assert [s["text"] for s in stored(engine, index, "r1")] == ["alpha corrected"]


def test_a_document_without_a_vector_keeps_the_vector_of_the_older_version(engine, index):
    index.upsert([doc("r1", "alpha", vector=[1.0, 0.0, 0.0], model_id="m1")])
    index.upsert([doc("r1", "alpha", version=2, status="DELETED")])
    [source] = stored(engine, index, "r1")
    assert (source["version"], source["status"]) == (2, "DELETED")
    assert (source["vector"], source["model_id"]) == ([1.0, 0.0, 0.0], "m1")


def test_a_vector_of_the_wrong_size_is_refused_before_any_request(index):
    with pytest.raises(ValueError, match="dimensions"):
        index.upsert([doc("r1", "alpha", vector=[1.0, 0.0])])


# -- deletes --------------------------------------------------------------------------------


def test_delete_agent_reads_the_copies_a_page_at_a_time(engine, index, monkeypatch):
    from agent_memory.adapters.opensearch import index as module

    monkeypatch.setattr(module, "PAGE_SIZE", 3)  # several pages of search_after
    index.upsert([doc(f"r{i}", "deploy") for i in range(8)])
    index.upsert([doc("other", "deploy", agent_id="teams/web/releases")])
    index.delete_agent("t1", "teams/web")
    everything = engine.search(index=index.index_name, body={"query": {"match_all": {}}})
    assert [hit["_source"]["doc_id"] for hit in everything["hits"]["hits"]] == ["other"]


def test_the_words_said_before_an_event_are_kept_beside_its_text(engine, index):
    index.upsert([doc("answer", "On Tuesdays.", kind="event", context="ship the api")])
    [source] = stored(engine, index, "answer")
    # What a search returns is the event's own text; its context is never a document's text.
    assert (source["text"], source["context"]) == ("On Tuesdays.", "ship the api")


def old_index(engine) -> str:
    """An index made before the `context` and `length` fields were."""
    name = f"memories-{uuid.uuid4().hex[:12]}"
    old = {"settings": {"index": {"knn": True}}, "mappings": {"dynamic": "strict"}}
    old["mappings"]["properties"] = {
        k: v
        for k, v in index_body(DIMS)["mappings"]["properties"].items()
        if k not in ("context", "length")
    }
    engine.indices.create(index=name, body=old)
    return name


def refuse_mapping(**_):
    raise opensearchpy.exceptions.AuthorizationException(403, "security_exception", {})


def test_an_index_made_before_the_context_and_length_fields_gains_them(engine):
    name = old_index(engine)
    try:
        adapter = OpenSearchIndex(engine, name, DIMS, refresh=True)
        adapter.upsert([doc("answer", "On Tuesdays.", kind="event", context="ship the api")])
        where = IndexFilter(kind="event", include_all_sessions=True)
        assert ids(adapter.lexical("t1", "teams/web", "ship", where, 10)) == ["answer"]
        # tuesday, plus ship and api at a quarter of a word each
        assert stored(engine, adapter, "answer")[0]["length"] == 1.5
    finally:
        engine.indices.delete(index=name, ignore_unavailable=True)


def test_an_index_that_refuses_the_new_fields_still_takes_documents(engine, monkeypatch):
    name = old_index(engine)

    monkeypatch.setattr(engine.indices, "put_mapping", refuse_mapping)
    try:
        adapter = OpenSearchIndex(engine, name, DIMS, refresh=True)
        adapter.upsert([doc("answer", "On Tuesdays.", kind="event", context="ship the api")])
        where = IndexFilter(kind="event", include_all_sessions=True)
        # Found by its own words; the words said before it were left out, not the document.
        assert ids(adapter.lexical("t1", "teams/web", "tuesdays", where, 10)) == ["answer"]
        assert adapter.lexical("t1", "teams/web", "ship", where, 10) == []
        assert {"context", "length"}.isdisjoint(stored(engine, adapter, "answer")[0])
    finally:
        engine.indices.delete(index=name, ignore_unavailable=True)


def test_documents_without_a_length_score_by_the_candidates_own_lengths(engine, index, monkeypatch):
    # Given the same documents in an index with `length` and in an older one that refused it
    docs = [doc("short", "falcon plan"), doc("long", "falcon and a much longer migration note")]
    name = old_index(engine)
    try:
        older = OpenSearchIndex(engine, name, DIMS, refresh=True)
        with monkeypatch.context() as patch:
            patch.setattr(engine.indices, "put_mapping", refuse_mapping)
            older.upsert(docs)
        index.upsert(docs)
        assert all("length" not in source for source in stored(engine, older, "short"))

        # When both candidates are all the agent's documents, their average is the agent's
        def scores(adapter):
            hits = adapter.lexical("t1", "teams/web", "falcon plan", IndexFilter(), 10)
            return {hit.id: hit.score for hit in hits}

        assert scores(older) == pytest.approx(scores(index))
        assert list(scores(index)) == ["short", "long"]
    finally:
        engine.indices.delete(index=name, ignore_unavailable=True)
