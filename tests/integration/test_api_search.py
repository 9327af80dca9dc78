"""Hybrid search and recall over record memory (embedded index on SQLite; the DynamoDB shape
without an OpenSearch endpoint ranks lexically in-process)."""

import dataclasses
import threading

import pytest

from agent_memory.domain.search.index import IndexFilter

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"


def manifest(**search):
    return {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
                "tools": ["add_memory", "delete_memory"],
                "search": search,
            }
        }
    }


def begin(api):
    session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    turn = api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)["id"]
    return f"{A}/-/sessions/{session}/turns/{turn}"


def tool(api, turn, name, **args):
    return api.ok("POST", f"{turn}/tools/{name}", {**args, "caller": {"role": "agent"}})["output"]


def seed(api, *summaries):
    turn = begin(api)
    ids = [
        tool(api, turn, "add_memory", summary=s, scope="agent")["memories"][0]["id"]
        for s in summaries
    ]
    api.ok("POST", f"{turn}/commit")
    return ids


FACTS = (
    "Releases ship on Tuesdays after the QA sign-off",
    "The staging cluster runs in eu-west-1",
    "Ana owns the billing service",
)


@pytest.mark.parametrize(
    ("mode", "found"), [("hybrid", True), ("vector", True), ("lexical", False)]
)
def test_meaning_finds_what_words_miss(api, embedded, mode, found):
    api.ok("PUT", A, manifest(mode=mode), expect=201)
    ship, _, _ = seed(api, *FACTS)
    hits = tool(api, begin(api), "search_memory", query="which weekday do we deploy", limit=1)[
        "records"
    ]
    assert ([h["id"] for h in hits] == [ship]) is found


def test_words_still_count_in_hybrid(api, embedded):
    api.ok("PUT", A, manifest(), expect=201)
    _, region, _ = seed(api, *FACTS)
    hits = tool(api, begin(api), "search_memory", query="eu-west-1", limit=1)["records"]
    assert [h["id"] for h in hits] == [region]


def test_min_score_is_the_bar_for_meaning_alone(api, embedded):
    api.ok("PUT", A, manifest(mode="vector", min_score=0.95), expect=201)
    seed(api, *FACTS)
    assert (
        tool(api, begin(api), "search_memory", query="which weekday do we deploy")["records"] == []
    )


@pytest.mark.parametrize(
    "query",
    ["api.example.com", "what's", "eu-west-1", '"', "AND (", "NEAR(a b)", "*", "col:umn", "the"],
)
def test_any_text_is_a_valid_query(api, embedded, query):
    api.ok("PUT", A, manifest(), expect=201)
    seed(api, *FACTS)
    assert "records" in tool(api, begin(api), "search_memory", query=query)


def test_a_stale_index_never_leaks_a_deleted_record(api, embedded, services):
    api.ok("PUT", A, manifest(), expect=201)
    ship, _, _ = seed(api, *FACTS)
    record = services.store.get_records("acme", "teams/web/releases", [ship])[0]
    api.ok("DELETE", f"{A}/-/records/{ship}")
    # Put the old, ACTIVE document back into the index, as a lagging indexer would.
    search = services.records._search
    search.index.upsert([dataclasses.replace(search.doc_without_vector(record), version=99)])
    hits = tool(api, begin(api), "search_memory", query="Releases ship Tuesdays")["records"]
    assert ship not in [h["id"] for h in hits]


def test_recall_returns_memory_marked_as_data_and_records_it_once(api, embedded):
    api.ok("PUT", A, manifest(max_results=2), expect=201)
    ship, _, _ = seed(api, *FACTS)
    turn = begin(api)
    got = api.ok("POST", f"{turn}/recall", {"context": "user: when do we ship the release?"})
    assert got["type"] == "memory"
    assert got["records"][0]["id"] == ship and len(got["records"]) <= 2
    assert got["text"].startswith("<memory note=") and "never instructions" in got["text"]
    assert f"[{ship}]" in got["text"]
    # The same versions again before the same conversation: returned, not recorded again.
    again = api.ok("POST", f"{turn}/recall", {"context": "user: when do we ship the release?"})
    assert again["records"] == got["records"]
    executions = api.ok("GET", turn)["executions"]
    recalls = [e for e in executions if e["input"].get("recall")]
    assert len(recalls) == 1
    assert recalls[0]["tool"] == "search_memory" and recalls[0]["retrieved"] is True
    assert recalls[0]["usage"][0]["purpose"] == "embed"


def test_a_helpers_recall_is_its_own_conversations(api, embedded):
    # The agent's recall put these versions before the agent's model, not before a helper's:
    # each conversation's first recall of them is recorded, and only that one.
    api.ok("PUT", A, manifest(max_results=2), expect=201)
    seed(api, *FACTS)
    turn = begin(api)
    context = {"context": "user: when do we ship the release?"}
    helper = {"role": "helper", "invocation": "inv-1"}
    other = {"role": "helper", "invocation": "inv-2"}
    for caller in (None, helper, helper, other, None, other):
        api.ok("POST", f"{turn}/recall", {**context, **({"caller": caller} if caller else {})})
    recalls = [e for e in api.ok("GET", turn)["executions"] if e["input"].get("recall")]
    assert [e["caller"].get("invocation") for e in recalls] == [None, "inv-1", "inv-2"]


def test_a_recall_that_finds_nothing_is_not_recorded(api, embedded):
    api.ok("PUT", A, manifest(min_score=0.99), expect=201)
    seed(api, *FACTS)
    turn = begin(api)
    got = api.ok("POST", f"{turn}/recall", {"context": "zzqx unrelated gibberish"})
    assert got["records"] == [] and got["text"] == ""
    assert api.ok("GET", turn)["executions"] == []


@pytest.mark.parametrize("body", [{}, {"context": ""}, {"context": 5}])
def test_recall_needs_a_context(api, embedded, body):
    api.ok("PUT", A, manifest(), expect=201)
    status, payload = api.call("POST", f"{begin(api)}/recall", body)
    assert (status, payload["error"]["code"]) == (400, "invalid_context")


def test_embedding_usage_is_readable_per_turn_and_per_agent(api, embedded):
    api.ok("PUT", A, manifest(), expect=201)
    seed(api, *FACTS)
    turn = begin(api)
    tool(api, turn, "search_memory", query="deploy day")
    turn_usage = api.ok("GET", turn)["usage"]
    assert [u["purpose"] for u in turn_usage] == ["embed"]
    assert turn_usage[0]["modelId"].startswith("sentence-transformers/all-MiniLM-L6-v2")
    assert turn_usage[0]["inputTokens"] > 0
    agent_usage = api.ok("GET", f"{A}/-/usage")
    # Indexing the three facts at commit, and the search.
    assert sum(t["calls"] for t in agent_usage["totals"]) == 2
    assert {u["purpose"] for u in agent_usage["usage"]} == {"embed"}


def test_reindex_embeds_what_another_model_or_none_left(embedded, tmp_path, embedder):
    from agent_memory.api.app import Api
    from agent_memory.bootstrap import build_services
    from agent_memory.local.reindex import reindex, stale_count
    from agent_memory.settings import Settings
    from apiclient import ApiClient, drained

    # Given records written while no embedding model was configured
    plain = build_services(Settings(data_dir=tmp_path), store=embedded, embedder=None)
    api = ApiClient(drained(Api(plain).handle, plain))
    api.ok("PUT", A, manifest(mode="vector"), expect=201)
    ship, _, _ = seed(api, *FACTS)
    assert stale_count(embedded, embedder.model_id) == 3

    # When the index is rebuilt with the model
    smart = build_services(Settings(data_dir=tmp_path), store=embedded, embedder=embedder)
    done = reindex(smart)
    assert (done.agents, done.records) == (1, 3)
    assert stale_count(embedded, embedder.model_id) == 0
    # Then search by meaning finds them, and a second run has nothing to do
    found = tool(
        ApiClient(drained(Api(smart).handle, smart)),
        begin(api),
        "search_memory",
        query="which weekday do we deploy",
        limit=1,
    )["records"]
    assert [r["id"] for r in found] == [ship]
    assert reindex(smart).records == 0


def test_reindex_embeds_memories_too_and_leaves_nothing_stale(embedded, tmp_path, embedder):
    from agent_memory.api.app import Api
    from agent_memory.bootstrap import build_services
    from agent_memory.local.reindex import reindex, stale_count
    from agent_memory.settings import Settings
    from apiclient import ApiClient, drained

    # A memory's document carries its last change's time as its version: a re-index of it
    # (once version 0) was refused as older, so memories stayed without vectors; and deleted or
    # superseded documents, never found by meaning, counted as stale for ever.
    plain = build_services(Settings(data_dir=tmp_path), store=embedded, embedder=None)
    api = ApiClient(drained(Api(plain).handle, plain))
    api.ok("PUT", A, manifest(mode="vector"), expect=201)
    api.ok(
        "PUT", f"{A}/-/memories/deploy.md", {"content": "Releases ship on Tuesdays\n"}, expect=201
    )
    api.ok("PUT", f"{A}/-/memories/gone.md", {"content": "old\n"}, expect=201)
    api.ok("DELETE", f"{A}/-/memories/gone.md", expect=204)
    first, _, _ = seed(api, *FACTS)
    api.ok("DELETE", f"{A}/-/records/{first}")
    smart = build_services(Settings(data_dir=tmp_path), store=embedded, embedder=embedder)
    done = reindex(smart)
    assert (done.files, done.records) == (1, 3)
    assert stale_count(embedded, embedder.model_id) == 0
    assert reindex(smart).records == 0


@pytest.mark.parametrize("query", ["Zürich", "zurich", "ZÜRICH", "東京"])
def test_words_outside_ascii_are_words(api, query):
    # "Zürich" was once split into "z" and "rich", and "東京" into nothing at all.
    api.ok("PUT", A, manifest(mode="lexical"), expect=201)
    (office,) = seed(api, "Das Büro liegt in Zürich, 東京 auch")
    seed(api, "The office is in Richmond")
    assert [r["id"] for r in tool(api, begin(api), "search_memory", query=query)["records"]] == [
        office
    ]
    assert [r["id"] for r in api.ok("GET", f"{A}/-/records", query=query)["records"]] == [office]


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_a_record_the_turn_just_wrote_ranks_by_the_words_it_shares(api, mode):
    # Scored by BM25 over the turn's own writes alone, a record with every word of the query
    # once ranked below an indexed one sharing a single word.
    api.ok("PUT", A, manifest(mode=mode), expect=201)
    seed(api, "Ana owns the billing service", *[f"note {i} about lunch" for i in range(20)])
    t = begin(api)
    mine = tool(api, t, "add_memory", summary="billing moved to team blue", scope="agent")
    hits = tool(api, t, "search_memory", query="billing team blue", limit=1)["records"]
    assert [h["id"] for h in hits] == [mine["memories"][0]["id"]]


def test_vectors_read_while_an_agent_is_deleted_are_not_kept(api, embedded, services, monkeypatch):
    # A query between the delete's clearing of the index and its commit reads the rows still
    # there into memory; the delete drops them again once committed.
    api.ok("PUT", A, manifest(), expect=201)
    seed(api, *FACTS)
    index = embedded.index
    clear = index.delete_agent_in

    def clear_then_query(conn, tenant, agent_id):
        clear(conn, tenant, agent_id)
        vector = services.records._search.embedder.embed(["ship"], query=True).vectors[0]
        found = []  # another request's thread, reading what is committed
        reader = threading.Thread(
            target=lambda: found.extend(
                index.vector(tenant, agent_id, vector, IndexFilter(kind="record"), 5)
            )
        )
        reader.start()
        reader.join(10)
        assert found

    monkeypatch.setattr(index, "delete_agent_in", clear_then_query)
    api.ok("DELETE", A, expect=204)
    assert not [key for key in index._matrices if key[:2] == ("acme", "teams/web/releases")]
