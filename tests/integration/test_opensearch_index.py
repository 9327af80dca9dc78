"""OpenSearchIndex against a real HTTP engine: osmem-server, an in-memory OpenSearch-compatible
server from PyPI, started as a subprocess on a loopback port for this module.

osmem-server has no k-NN, so this covers the index mapping, writes, versions, deletes, lexical
search and every filter; the k-NN request bodies are checked in tests/unit/test_opensearch_bodies.py.
"""

from __future__ import annotations

import socket
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.adapters.opensearch import OpenSearchIndex
from agent_memory.adapters.opensearch.bodies import index_body
from agent_memory.domain.errors import StorageUnavailable
from agent_memory.domain.search.index import IndexDoc, IndexFilter

pytestmark = pytest.mark.integration

osmem_server = pytest.importorskip(
    "osmem_server", reason="osmem-server (dev extra) is not installed for this platform"
)
opensearchpy = pytest.importorskip("opensearchpy")

DIMS = 3
T0 = datetime(2025, 1, 1, tzinfo=UTC)


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


def doc(doc_id: str, text: str, **fields) -> IndexDoc:
    values = {
        "tenant": "t1",
        "agent_id": "teams/web",
        "kind": "record",
        "id": doc_id,
        "version": 1,
        "text": text,
        "created_at": T0,
    }
    values.update(fields)
    return IndexDoc(**values)


def ids(hits) -> list[str]:
    return [hit.id for hit in hits]


def found(
    index: OpenSearchIndex,
    query: str,
    where: IndexFilter | None = None,
    tenant: str = "t1",
    agent: str = "teams/web",
) -> set[str]:
    return set(ids(index.lexical(tenant, agent, query, where or IndexFilter(), 50)))


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


# -- lexical ranking ------------------------------------------------------------------------


def test_a_document_sharing_more_query_words_ranks_first(index):
    index.upsert(
        [
            doc("one-word", "the release goes out on friday"),
            doc("three-words", "the api release to eu-west-1 goes out on friday"),
            doc("none", "lunch is at noon"),
        ]
    )
    hits = index.lexical("t1", "teams/web", "api release eu-west-1", IndexFilter(), 10)
    assert ids(hits) == ["three-words", "one-word"]
    assert hits[0].score > hits[1].score > 0
    assert hits[0].created_at == T0


def test_english_stems_match(index):
    index.upsert([doc("r1", "we deployed the service")])
    assert found(index, "deploying services") == {"r1"}


def test_limit_caps_the_hits(index):
    index.upsert([doc(f"r{i}", f"deploy note {i}") for i in range(5)])
    assert len(index.lexical("t1", "teams/web", "deploy", IndexFilter(), 2)) == 2


@pytest.mark.parametrize(
    "query",
    [
        "api.example.com",
        "what's the region?",
        "eu-west-1",
        '"unbalanced quote',
        'say "hello world"',
        "deploy AND rollback",
        "OR NOT ( ) [ ] { } : ^ ~ * ? \\ /",
        "title:secret",
        "   ",
        "",
    ],
)
def test_special_characters_in_queries_do_not_error(index, query):
    index.upsert([doc("r1", "api.example.com lives in eu-west-1; what's deployed there")])
    index.lexical("t1", "teams/web", query, IndexFilter(), 5)


def test_words_inside_host_names_and_regions_are_found(index):
    index.upsert([doc("r1", "api.example.com lives in eu-west-1")])
    assert found(index, "api.example.com") == {"r1"}
    assert found(index, "eu-west-1") == {"r1"}


# -- filters --------------------------------------------------------------------------------


def test_statuses_filter(index):
    index.upsert(
        [
            doc("active", "deploy"),
            doc("superseded", "deploy", status="SUPERSEDED"),
            doc("deleted", "deploy", status="DELETED"),
        ]
    )
    assert found(index, "deploy") == {"active"}
    where = IndexFilter(statuses=frozenset({"SUPERSEDED", "DELETED"}))
    assert found(index, "deploy", where) == {"superseded", "deleted"}
    assert found(index, "deploy", IndexFilter(statuses=frozenset())) == {
        "active",
        "superseded",
        "deleted",
    }


def test_record_kinds_filter(index):
    index.upsert(
        [
            doc("fact", "deploy", record_kind="fact"),
            doc("event", "deploy", record_kind="event"),
            doc("guidance", "deploy", record_kind="guidance"),
        ]
    )
    where = IndexFilter(record_kinds=frozenset({"fact", "guidance"}))
    assert found(index, "deploy", where) == {"fact", "guidance"}


def test_labels_filter_needs_every_label_to_match_exactly(index):
    index.upsert(
        [
            doc("both", "deploy", labels={"team": "web", "env": "prod=eu"}),
            doc("team-only", "deploy", labels={"team": "web"}),
            doc("other-team", "deploy", labels={"team": "web-ops", "env": "prod=eu"}),
        ]
    )
    assert found(index, "deploy", IndexFilter(labels={"team": "web"})) == {"both", "team-only"}
    where = IndexFilter(labels={"team": "web", "env": "prod=eu"})
    assert found(index, "deploy", where) == {"both"}
    assert found(index, "deploy", IndexFilter(labels={"team": "we"})) == set()


def test_ids_filter(index):
    index.upsert([doc("a", "deploy"), doc("b/c", "deploy"), doc("d", "deploy")])
    assert found(index, "deploy", IndexFilter(ids=frozenset({"a", "b/c"}))) == {"a", "b/c"}


def test_kinds_are_separate(index):
    index.upsert([doc("notes.md", "deploy", kind="file"), doc("r1", "deploy")])
    assert found(index, "deploy") == {"r1"}
    assert found(index, "deploy", IndexFilter(kind="file")) == {"notes.md"}


def test_scope_and_session_rules(index):
    index.upsert(
        [
            doc("agent", "deploy", scope="agent"),
            doc("mine", "deploy", scope="session", session_id="s1"),
            doc("other", "deploy", scope="session", session_id="s2"),
        ]
    )
    assert found(index, "deploy") == {"agent"}
    assert found(index, "deploy", IndexFilter(session_id="s1")) == {"agent", "mine"}
    where = IndexFilter(session_id="s1", include_agent=False)
    assert found(index, "deploy", where) == {"mine"}
    assert found(index, "deploy", IndexFilter(include_all_sessions=True)) == {
        "agent",
        "mine",
        "other",
    }
    where = IndexFilter(include_all_sessions=True, include_agent=False)
    assert found(index, "deploy", where) == {"mine", "other"}
    assert found(index, "deploy", IndexFilter(include_agent=False)) == set()


def test_preview_live_any_only(index):
    index.upsert([doc("live", "deploy"), doc("preview", "deploy", preview=True)])
    assert found(index, "deploy") == {"live"}
    assert found(index, "deploy", IndexFilter(preview="any")) == {"live", "preview"}
    assert found(index, "deploy", IndexFilter(preview="only")) == {"preview"}


def test_tenants_and_agents_are_isolated(index):
    index.upsert(
        [
            doc("mine", "deploy"),
            doc("other-tenant", "deploy", tenant="t2"),
            doc("other-agent", "deploy", agent_id="teams/web/releases"),
            doc("prefix-agent", "deploy", agent_id="teams"),
        ]
    )
    assert found(index, "deploy") == {"mine"}
    assert found(index, "deploy", tenant="t2") == {"other-tenant"}
    assert found(index, "deploy", agent="teams/web/releases") == {"other-agent"}
    assert found(index, "deploy", tenant="t2", agent="teams/web/releases") == set()


def test_the_same_id_under_two_tenants_is_two_documents(engine, index):
    index.upsert([doc("r1", "alpha"), doc("r1", "beta", tenant="t2", version=5)])
    assert found(index, "alpha") == {"r1"}
    assert found(index, "beta", tenant="t2") == {"r1"}
    assert found(index, "beta") == set()
    assert len(stored(engine, index, "r1")) == 2


# -- versions -------------------------------------------------------------------------------


def test_a_newer_version_replaces_the_older(engine, index):
    index.upsert([doc("r1", "alpha", version=1)])
    index.upsert([doc("r1", "beta", version=2, status="SUPERSEDED")])
    assert found(index, "alpha") == set()
    assert found(index, "beta", IndexFilter(statuses=frozenset({"SUPERSEDED"}))) == {"r1"}
    assert [s["version"] for s in stored(engine, index, "r1")] == [2]


def test_an_older_version_never_overwrites_a_newer_one(engine, index):
    index.upsert([doc("r1", "beta", version=3)])
    index.upsert([doc("r1", "alpha", version=2)])
    index.upsert([doc("r1", "alpha", version=1), doc("r1", "gamma", version=2)])
    assert found(index, "beta") == {"r1"}
    assert found(index, "alpha gamma") == set()
    assert [s["version"] for s in stored(engine, index, "r1")] == [3]


def test_the_newest_of_one_batch_wins(engine, index):
    index.upsert([doc("r1", "beta", version=2), doc("r1", "alpha", version=1)])
    assert [s["text"] for s in stored(engine, index, "r1")] == ["beta"]


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


def test_delete_removes_only_the_named_documents(engine, index):
    index.upsert(
        [
            doc("a", "deploy"),
            doc("b/c", "deploy"),
            doc("keep", "deploy"),
            doc("a", "deploy", kind="file"),
            doc("a", "deploy", tenant="t2"),
        ]
    )
    index.delete("t1", "teams/web", "record", ["a", "b/c", "never-indexed"])
    assert found(index, "deploy") == {"keep"}
    assert found(index, "deploy", IndexFilter(kind="file")) == {"a"}
    assert found(index, "deploy", tenant="t2") == {"a"}
    index.delete("t1", "teams/web", "record", [])


def test_delete_agent_removes_every_document_of_that_agent_only(engine, index, monkeypatch):
    from agent_memory.adapters.opensearch import index as module

    monkeypatch.setattr(module, "PAGE_SIZE", 3)  # several pages of search_after
    index.upsert([doc(f"r{i}", "deploy") for i in range(8)])
    index.upsert([doc("f.md", "deploy", kind="file")])
    index.upsert([doc("other", "deploy", agent_id="teams/web/releases")])
    index.upsert([doc("r0", "deploy", tenant="t2")])
    index.delete_agent("t1", "teams/web")
    assert found(index, "deploy", IndexFilter(preview="any")) == set()
    assert found(index, "deploy", IndexFilter(kind="file")) == set()
    assert found(index, "deploy", agent="teams/web/releases") == {"other"}
    assert found(index, "deploy", tenant="t2") == {"r0"}


def test_created_at_comes_back_with_each_hit(index):
    later = T0 + timedelta(days=3, microseconds=250)
    index.upsert([doc("r1", "deploy", created_at=later)])
    [hit] = index.lexical("t1", "teams/web", "deploy", IndexFilter(), 5)
    assert hit.created_at == later


def test_words_said_before_an_event_find_it_below_its_own_words(engine, index):
    index.upsert(
        [
            doc("asked", "turn 1, user: When do we ship the api?", kind="event"),
            doc("answer", "turn 1, assistant: On Tuesdays.", kind="event", context="ship the api"),
            doc("aside", "turn 2, user: Lunch?", kind="event", context="On Tuesdays."),
        ]
    )
    where = IndexFilter(kind="event", include_all_sessions=True)
    hits = index.lexical("t1", "teams/web", "when do we ship", where, 10)
    assert ids(hits) == ["asked", "answer"]
    assert hits[0].score > hits[1].score > 0
    assert [s["context"] for s in stored(engine, index, "answer")] == ["ship the api"]
    # What the search returns is the event's own text; its context is never a document's text.
    assert [s["text"] for s in stored(engine, index, "answer")] == [
        "turn 1, assistant: On Tuesdays."
    ]


def test_an_index_made_before_the_context_field_gains_it(engine):
    name = f"memories-{uuid.uuid4().hex[:12]}"
    old = {
        "settings": {"index": {"knn": True}},
        "mappings": {"dynamic": "strict", "properties": {}},
    }
    old["mappings"]["properties"] = {
        k: v for k, v in index_body(DIMS)["mappings"]["properties"].items() if k != "context"
    }
    engine.indices.create(index=name, body=old)
    try:
        adapter = OpenSearchIndex(engine, name, DIMS, refresh=True)
        adapter.upsert([doc("answer", "On Tuesdays.", kind="event", context="ship the api")])
        where = IndexFilter(kind="event", include_all_sessions=True)
        assert ids(adapter.lexical("t1", "teams/web", "ship", where, 10)) == ["answer"]
    finally:
        engine.indices.delete(index=name, ignore_unavailable=True)


def test_an_index_that_refuses_the_context_field_still_takes_documents(engine, monkeypatch):
    name = f"memories-{uuid.uuid4().hex[:12]}"
    old = {"settings": {"index": {"knn": True}}, "mappings": {"dynamic": "strict"}}
    old["mappings"]["properties"] = {
        k: v for k, v in index_body(DIMS)["mappings"]["properties"].items() if k != "context"
    }
    engine.indices.create(index=name, body=old)

    def refused(**_):
        raise opensearchpy.exceptions.AuthorizationException(403, "security_exception", {})

    monkeypatch.setattr(engine.indices, "put_mapping", refused)
    try:
        adapter = OpenSearchIndex(engine, name, DIMS, refresh=True)
        adapter.upsert([doc("answer", "On Tuesdays.", kind="event", context="ship the api")])
        where = IndexFilter(kind="event", include_all_sessions=True)
        # Found by its own words; the words said before it were left out, not the document.
        assert ids(adapter.lexical("t1", "teams/web", "tuesdays", where, 10)) == ["answer"]
        assert adapter.lexical("t1", "teams/web", "ship", where, 10) == []
        assert "context" not in stored(engine, adapter, "answer")[0]
    finally:
        engine.indices.delete(index=name, ignore_unavailable=True)
