"""AgentMemoryStore against the embedded server: the BaseStore contract (put, get, search,
delete, list_namespaces through batch and abatch), checked op for op against LangGraph's own
InMemoryStore where their answers must agree, and the mapping onto records where it shows."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import re
from typing import Any

import pytest
from langgraph.store.base import BaseStore, GetOp, Item, ListNamespacesOp, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from agent_memory.client import Client
from agent_memory.integrations.langgraph_store import AgentMemoryStore
from conftest import Server

pytestmark = pytest.mark.e2e

_agents = itertools.count()


@pytest.fixture
def client(module_server: Server) -> Client:
    return module_server.client()


@pytest.fixture
def store(client: Client) -> AgentMemoryStore:
    return AgentMemoryStore(client, f"lg/agent{next(_agents)}")


def _shape(result: Any) -> Any:
    """What two stores must agree on: values, keys, namespaces, order; not times or scores."""
    if isinstance(result, list):
        return [_shape(r) for r in result]
    if isinstance(result, Item):
        return (result.namespace, result.key, result.value)
    return result


def _both(store: AgentMemoryStore, ops: list[Any], reference: BaseStore) -> list[Any]:
    ours = _shape(store.batch(ops))
    assert ours == _shape(reference.batch(ops))
    return ours


def test_put_get_delete_as_langgraphs_own_store(store: AgentMemoryStore) -> None:
    reference = InMemoryStore()
    for target in (store, reference):
        target.put(("users", "u1"), "prefs", {"drink": "tea", "sugar": 0})
        target.put(("users", "u1"), "name", {"first": "Ada"})
        target.put(("users", "u2"), "prefs", {"drink": "coffee"})
    assert _both(store, [GetOp(("users", "u1"), "prefs")], reference) == [
        (("users", "u1"), "prefs", {"drink": "tea", "sugar": 0})
    ]
    # A missing key, a missing namespace, a namespace that is only a prefix: nothing.
    assert _both(
        store,
        [
            GetOp(("users", "u1"), "nope"),
            GetOp(("users", "u3"), "prefs"),
            GetOp(("users",), "prefs"),
        ],
        reference,
    ) == [None, None, None]
    for target in (store, reference):
        target.delete(("users", "u1"), "prefs")
        target.delete(("users", "u1"), "never-there")  # deleting what is not there is fine
    assert _both(
        store, [GetOp(("users", "u1"), "prefs"), GetOp(("users", "u2"), "prefs")], reference
    ) == [
        None,
        (("users", "u2"), "prefs", {"drink": "coffee"}),
    ]


def test_an_update_keeps_created_at_and_replaces_the_record(
    store: AgentMemoryStore, client: Client
) -> None:
    store.put(("docs",), "readme", {"text": "first"})
    first = store.get(("docs",), "readme")
    store.put(("docs",), "readme", {"text": "second"})
    second = store.get(("docs",), "readme")
    assert first is not None and second is not None
    assert second.value == {"text": "second"}
    assert second.created_at == first.created_at
    assert second.updated_at > first.updated_at
    # On the service: the new record replaces the old, which stays readable as SUPERSEDED.
    records = client.list_records(store.agent_id, status="all")["records"]
    assert [(r["status"], r["replaces"]) for r in records] == [
        ("ACTIVE", records[1]["id"]),
        ("SUPERSEDED", None),
    ]
    assert records[0]["labels"]["namespace"] == "docs"
    assert records[0]["kind"] == "langgraph" and records[0]["scope"] == "agent"
    # Each write is a committed turn of the store's session, named by the record.
    assert records[0]["provenance"]["sessionId"] == store.runner.session_id


def test_a_batch_reads_first_then_writes_and_the_last_put_wins(store: AgentMemoryStore) -> None:
    reference = InMemoryStore()
    ops = [
        PutOp(("a",), "k", {"v": 1}),
        GetOp(("a",), "k"),
        PutOp(("a",), "k", {"v": 2}),
        SearchOp(("a",), limit=10),
    ]
    assert _both(store, ops, reference) == [None, None, None, []]
    # (Not compared with the reference: its get of a missing key makes an empty namespace.)
    assert store.batch([ListNamespacesOp(limit=10)]) == [[("a",)]]
    assert _both(store, [GetOp(("a",), "k")], reference) == [(("a",), "k", {"v": 2})]
    # A put and a delete of one key in one batch: the last wins, as in LangGraph's store.
    assert _both(store, [PutOp(("a",), "k", {"v": 3}), PutOp(("a",), "k", None)], reference) == [
        None,
        None,
    ]
    assert store.get(("a",), "k") is None


def test_search_by_prefix_filter_limit_and_offset(store: AgentMemoryStore) -> None:
    reference = InMemoryStore()
    rows = [
        (("org", "team", "a", "b", "deep"), "x", {"n": 1, "tag": "red"}),
        (("org", "team", "a", "b", "other"), "y", {"n": 2, "tag": "blue"}),
        (("org", "team", "c"), "z", {"n": 3, "tag": "red", "meta": {"on": True}}),
        (("elsewhere",), "w", {"n": 4, "tag": "red"}),
    ]
    for target in (store, reference):
        for namespace, key, value in rows:
            target.put(namespace, key, value)

    def keys(prefix: tuple[str, ...], **options: Any) -> list[str]:
        found = store.search(prefix, **options)
        assert sorted(i.key for i in found) == sorted(
            i.key for i in reference.search(prefix, **options)
        )
        return sorted(i.key for i in found)

    assert keys(("org",)) == ["x", "y", "z"]
    assert keys(("org", "team", "a", "b")) == ["x", "y"]
    # Deeper than the four prefix labels: the rest of the prefix is checked on the values.
    assert keys(("org", "team", "a", "b", "deep")) == ["x"]
    assert keys(()) == ["w", "x", "y", "z"]
    assert keys((), filter={"tag": "red"}) == ["w", "x", "z"]
    assert keys((), filter={"n": {"$gte": 2, "$lt": 4}}) == ["y", "z"]
    assert keys((), filter={"tag": {"$ne": "red"}}) == ["y"]
    assert keys((), filter={"meta": {"on": True}}) == ["z"]
    # Without a query, newest first: limit and offset page through that order.
    assert [i.key for i in store.search((), limit=2)] == ["w", "z"]
    assert [i.key for i in store.search((), limit=2, offset=2)] == ["y", "x"]
    assert all(i.score is None for i in store.search(()))


def test_a_query_ranks_through_the_services_search(store: AgentMemoryStore, client: Client) -> None:
    store.put(("notes",), "drinks", {"text": "Ada drinks her coffee black every morning"})
    store.put(("notes",), "deploys", {"text": "Deploys happen on Fridays after review"})
    store.put(("other",), "coffee", {"text": "coffee beans are stored in the cellar"})
    # The store waits for its puts' vectors itself before ranking (vector_wait).
    found = store.search(("notes",), query="coffee")
    assert client.index_status(store.agent_id)["pendingVectors"] == 0
    # Every item under the prefix: the one the query finds first, ranked; the other after it.
    assert [(i.key, i.score) for i in found] == [("drinks", 1.0), ("deploys", None)]
    everywhere = store.search((), query="coffee", limit=2)
    assert sorted(i.key for i in everywhere) == ["coffee", "drinks"]
    assert [i.score for i in everywhere] == [1.0, 0.5]


DIMS = 64


def _words_embedding(texts: list[str]) -> list[list[float]]:
    """InMemoryStore's embedding for the parity cases: each word a dimension (by its hash), so
    a query ranks by the words it shares, as the service's words do."""
    vectors = []
    for text in texts:
        vector = [0.0] * DIMS
        for word in re.findall(r"[a-z]+", text.lower()):
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMS] += 1.0
        vectors.append(vector)
    return vectors


def _indexed_reference() -> InMemoryStore:
    return InMemoryStore(index={"dims": DIMS, "embed": _words_embedding})


def test_a_query_with_a_filter_returns_every_item_passing_the_filter_ranked(
    store: AgentMemoryStore,
) -> None:
    # LangGraph's case: filter={"color": "red"}, query="apple" gives both red items.
    reference = _indexed_reference()
    rows = [
        ("a", {"text": "apple pie with cinnamon", "color": "red"}),
        ("b", {"text": "the invoice was paid on Monday", "color": "red"}),
        ("c", {"text": "apple juice", "color": "green"}),
    ]
    for target in (store, reference):
        for key, value in rows:
            target.put(("fruit",), key, value)

    ours = store.search(("fruit",), filter={"color": "red"}, query="apple")
    theirs = reference.search(("fruit",), filter={"color": "red"}, query="apple")

    assert [i.key for i in ours] == [i.key for i in theirs] == ["a", "b"]
    assert ours[0].score == 1.0
    # Paged like LangGraph's: the offset counts the ranked items first.
    assert [i.key for i in store.search(("fruit",), query="apple", limit=1, offset=1)] == [
        i.key for i in reference.search(("fruit",), query="apple", limit=1, offset=1)
    ]


def test_a_search_right_after_a_put_finds_what_only_its_meaning_finds(
    store: AgentMemoryStore,
) -> None:
    # No word of "coffee" is in either value: only the first one's meaning is near it.
    store.put(("drinks",), "morning", {"text": "Ada starts every day with a double espresso"})
    store.put(("drinks",), "deploys", {"text": "Deploys happen on Fridays after review"})

    found = store.search(("drinks",), query="coffee")

    assert (found[0].key, found[0].score) == ("morning", 1.0)


def test_a_put_with_index_false_is_stored_but_never_ranked_by_a_query(
    store: AgentMemoryStore, client: Client
) -> None:
    reference = _indexed_reference()
    for target in (store, reference):
        target.put(("docs",), "hidden", {"text": "falcon launch checklist"}, index=False)
        target.put(("docs",), "shown", {"text": "falcon launch window"})

    # Read back and found by prefix as any item; by a query, after the ranked ones, unscored.
    assert store.get(("docs",), "hidden") is not None
    assert sorted(i.key for i in store.search(("docs",))) == ["hidden", "shown"]
    ours = store.search(("docs",), query="falcon checklist")
    theirs = reference.search(("docs",), query="falcon checklist")
    assert [(i.key, i.score is None) for i in ours] == [(i.key, i.score is None) for i in theirs]
    assert [(i.key, i.score is None) for i in ours] == [("shown", False), ("hidden", True)]
    # Deviation: the service's own search (an agent's search_memory) still finds it.
    found = client.list_records(store.agent_id, query="checklist", kind="langgraph")["records"]
    assert [r["labels"]["key"] for r in found][:1] == ["hidden"]


def test_deviation_a_put_indexing_some_fields_is_found_by_all_of_them(
    store: AgentMemoryStore,
) -> None:
    # LangGraph embeds only `title` here; the service indexes the whole value.
    store.put(("docs",), "k", {"title": "release notes", "body": "zeppelin"}, index=["title"])

    assert [(i.key, i.score) for i in store.search(("docs",), query="zeppelin")] == [("k", 1.0)]


def test_deviation_a_namespace_emptied_by_deletes_is_not_listed(store: AgentMemoryStore) -> None:
    reference = InMemoryStore()
    for target in (store, reference):
        target.put(("gone",), "k", {"v": 1})
        target.put(("kept",), "k", {"v": 1})
        target.delete(("gone",), "k")

    assert store.list_namespaces() == [("kept",)]
    assert reference.list_namespaces() == [("gone",), ("kept",)]


def test_a_negative_vector_wait_is_refused(client: Client) -> None:
    with pytest.raises(ValueError, match="vector_wait is seconds"):
        AgentMemoryStore(client, "lg/never", vector_wait=-1)


def test_list_namespaces_with_conditions_depth_limit_and_offset(store: AgentMemoryStore) -> None:
    reference = InMemoryStore()
    namespaces = [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "x"),
        ("z", "b", "c"),
    ]
    for target in (store, reference):
        for ns in namespaces:
            target.put(ns, "k", {"v": 1})
    cases: list[dict[str, Any]] = [
        {},
        {"prefix": ("a",)},
        {"suffix": ("c",)},
        {"prefix": ("*", "b")},
        {"prefix": ("*", "b", "*")},
        {"prefix": ("a", "*", "d")},
        {"suffix": ("b", "*")},
        {"suffix": ("*", "*", "*")},
        {"prefix": ("a", "b", "c", "d")},  # deeper than every namespace: none
        {"prefix": ("a",), "suffix": ("c",)},
        {"prefix": ("*",), "suffix": ("x",), "max_depth": 1},
        {"prefix": ("a",), "max_depth": 2},
        {"max_depth": 1},
        {"max_depth": 5},
        {"limit": 2, "offset": 1},
        {"prefix": ("*", "b"), "limit": 1, "offset": 1},
    ]
    for case in cases:
        assert store.list_namespaces(**case) == reference.list_namespaces(**case), case


def test_async_methods_match_the_sync_ones(store: AgentMemoryStore) -> None:
    async def lifecycle() -> list[Any]:
        await store.aput(("async",), "k1", {"v": 1})
        await store.aput(("async",), "k2", {"v": 2})
        got = await store.aget(("async",), "k1")
        searched = await store.asearch(("async",), filter={"v": 2})
        await store.adelete(("async",), "k1")
        gone = await store.aget(("async",), "k1")
        spaces = await store.alist_namespaces()
        return [got, searched, gone, spaces]

    got, searched, gone, spaces = asyncio.run(lifecycle())
    assert got is not None and got.value == {"v": 1}
    assert [i.key for i in searched] == ["k2"]
    assert gone is None
    assert spaces == [("async",)]


def test_a_batch_larger_than_a_turn_is_applied_whole(
    store: AgentMemoryStore, client: Client
) -> None:
    store.batch([PutOp(("bulk",), f"k{i:02d}", {"i": i}) for i in range(30)])
    assert len(store.search(("bulk",), limit=100)) == 30
    turns = client.list_turns(store.agent_id, store.runner.session_id)["turns"]
    assert [t["status"] for t in turns] == ["committed", "committed"]  # 24 writes, then 6


def test_bad_input_is_refused_and_changes_nothing(store: AgentMemoryStore, client: Client) -> None:
    store.put(("ok",), "k", {"v": 1})
    before = client.list_records(store.agent_id, status="all")["records"]
    with pytest.raises(ValueError, match="key is 1 to 256"):
        store.put(("ok",), "k" * 257, {"v": 2})
    with pytest.raises(ValueError, match="namespace is 1 to 256"):
        store.put(("n" * 200, "m" * 60), "k", {"v": 2})
    with pytest.raises(NotImplementedError, match="TTL"):
        store.put(("ok",), "k", {"v": 2}, ttl=5)
    with pytest.raises(Exception, match="period"):  # LangGraph's own namespace check
        store.put(("a.b",), "k", {"v": 2})
    assert client.list_records(store.agent_id, status="all")["records"] == before


def test_the_agents_manifest_gains_only_what_the_store_needs(client: Client) -> None:
    agent = f"lg/agent{next(_agents)}"
    client.put_agent(
        agent,
        {
            "harness": {
                "memory": {
                    "enabled": True,
                    "instructions": "keep it short",
                    "labels": {"customer": {"number": 5, "description": "who"}},
                },
                "tools": ["own-tool"],
            }
        },
    )
    AgentMemoryStore(client, agent).put(("x",), "k", {"v": 1})
    manifest = client.get_agent(agent)["manifest"]["harness"]
    memory = manifest["memory"]
    assert manifest["tools"] == ["own-tool"]
    assert memory["instructions"] == "keep it short"
    assert memory["labels"]["customer"]["number"] == 5
    numbers = [label["number"] for label in memory["labels"].values()]
    assert len(set(numbers)) == len(numbers) == 9
    assert "langgraph" in memory["kinds"]
    assert "agent" in memory["scope"]["write"]
    # A second store on the same agent saves no new version.
    version = client.get_agent(agent)["manifestVersion"]
    AgentMemoryStore(client, agent).put(("x",), "k2", {"v": 2})
    assert client.get_agent(agent)["manifestVersion"] == version
