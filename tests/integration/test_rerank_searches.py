"""harness.memory.search.rerank end to end, on both shapes: SQLite with its embedded index, and
DynamoDB (under moto) as the cloud runs it, indexed from the table's stream into OpenSearch
(tests/cloud_shape.py). The reranker is a real HTTP /rerank service on a loopback port
(tests/rerank_server.py) that scores a text by the times it says "zebra": search_memory, the
records listing's query (now and as of an instant), search_history, the history search and the one search each put their
first hits in its order, and each keeps its first-stage order when the service fails."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from apiclient import ApiClient
from rerank_server import RerankServer, rerank_server

pytestmark = pytest.mark.integration

A = "/v1/agents/ops/infra"
AGENT = {"role": "agent"}
MODEL = "zebra-reranker"
TEXTS = (
    "datacenter migration: the datacenter migration plan for the migration",
    "the datacenter migration is on hold",
    "zebra notes mention the datacenter",
    "migration of the datacenter starts in March",
)
QUERY = "datacenter migration"


@dataclass
class Shape:
    api: ApiClient
    index: Callable[[], object]  # makes what was written searchable (the cloud's stream)
    server: RerankServer


@contextmanager
def sqlite_shape(tmp_path, embedder, server) -> Iterator[Shape]:
    from agent_memory.adapters.sqlite import SqliteStore
    from agent_memory.api.app import Api
    from agent_memory.bootstrap import build_services
    from agent_memory.settings import Settings
    from apiclient import drained

    store = SqliteStore(tmp_path / "db.sqlite3")
    settings = Settings(data_dir=tmp_path, rerank_http_base_url=server.url)
    services = build_services(settings, store=store, embedder=embedder)
    try:
        yield Shape(ApiClient(drained(Api(services).handle, services)), lambda: None, server)
    finally:
        store.close()


@pytest.fixture(params=["sqlite", "dynamodb"])
def shape(request, tmp_path, monkeypatch) -> Iterator[Shape]:
    with rerank_server() as server:
        if request.param == "sqlite":
            embedder = request.getfixturevalue("embedder")
            with sqlite_shape(tmp_path, embedder, server) as built:
                yield built
        else:
            pytest.importorskip("osmem_server", reason="osmem-server (dev extra) is not installed")
            from cloud_shape import cloud_shape

            monkeypatch.setenv("AGENT_MEMORY_RERANK_HTTP_BASE_URL", server.url)
            with cloud_shape(tmp_path) as cloud:
                yield Shape(cloud.api, cloud.index_stream, server)


def manifest(rerank: dict | None) -> dict:
    search = {"max_results": 10} if rerank is None else {"max_results": 10, "rerank": rerank}
    return {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["agent"], "write": ["agent"]},
                "tools": ["add_memory", "search_memory"],
                "search": search,
            },
            "history": {"index": "messages", "search": "agent"},
        }
    }


RERANK = {"provider": "http", "model": MODEL, "top": 10}


def seed(shape: Shape) -> None:
    """Each text as an agent-scope record and as a message of a committed turn."""
    api = shape.api
    api.ok("PUT", A, manifest(None), expect=201)
    session = api.ok("POST", f"{A}/-/sessions", {"id": "s1"}, expect=201)["id"]
    turn = (
        f"{A}/-/sessions/{session}/turns/"
        + api.ok("POST", f"{A}/-/sessions/{session}/turns", {}, expect=201)["id"]
    )
    api.ok("POST", f"{turn}/events", {"events": [{"role": "user", "text": t} for t in TEXTS]})
    for text in TEXTS:
        args = {"summary": text, "scope": "agent", "caller": AGENT}
        api.ok("POST", f"{turn}/tools/add_memory", args)
    api.ok("POST", f"{turn}/commit")
    shape.index()


def new_turn(api: ApiClient) -> str:
    turn = api.ok("POST", f"{A}/-/sessions/s1/turns", {}, expect=201)["id"]
    return f"{A}/-/sessions/s1/turns/{turn}"


def searches(api: ApiClient) -> dict[str, list[str]]:
    """The texts each search finds for QUERY, best first."""

    def tool(name: str) -> dict:
        turn = new_turn(api)
        out = api.ok("POST", f"{turn}/tools/{name}", {"query": QUERY, "caller": AGENT})["output"]
        api.ok("POST", f"{turn}/commit")
        return out

    one = api.ok("GET", f"{A}/-/search", query=QUERY, types="records", limit=10)["hits"]
    return {
        "search_memory": [r["summary"] for r in tool("search_memory")["records"]],
        "records listing": [
            r["summary"] for r in api.ok("GET", f"{A}/-/records", query=QUERY)["records"]
        ],
        "records listing as of": [
            r["summary"]
            for r in api.ok("GET", f"{A}/-/records", query=QUERY, asOf=now())["records"]
        ],
        "search_history": [e["text"] for e in tool("search_history")["events"]],
        "history search": [
            e["text"] for e in api.ok("GET", f"{A}/-/history", query=QUERY)["events"]
        ],
        "one search": [h["summary"] for h in one],
    }


def now() -> str:
    return datetime.now(UTC).isoformat()


def zebras_first(texts: list[str]) -> list[str]:
    """The reranker's order: most zebras first, ties in their first-stage order."""
    return sorted(texts, key=lambda t: -t.count("zebra"))


def test_each_search_takes_the_rerankers_order_and_falls_back_when_it_fails(shape):
    api = shape.api
    # Given an agent's records and history, found in a first-stage order without a rerank
    seed(shape)
    first = searches(api)
    for name, texts in first.items():
        assert len(texts) == len(TEXTS), (name, texts)
        assert texts != zebras_first(texts), f"{name}: the first stage already agrees"
    assert shape.server.requests == []  # off by default: nothing is reranked

    # When the manifest asks for a rerank
    api.ok("PUT", A, manifest(RERANK), expect=200)
    reranked = searches(api)

    # Then each search puts its hits in the reranker's order
    for name, texts in first.items():
        assert reranked[name] == zebras_first(texts), name
    assert len(shape.server.requests) == len(first)
    assert {r["model"] for r in shape.server.requests} == {MODEL}
    # And each rerank is usage of purpose search, with its latency and documents
    usage = [
        u for u in api.ok("GET", f"{A}/-/usage", limit=100)["usage"] if u["purpose"] == "search"
    ]
    assert len(usage) == len(first)
    assert all(u["modelId"] == MODEL and u["documents"] == len(TEXTS) for u in usage)
    assert all(u["latencyMs"] >= 0 for u in usage)

    # When the reranker fails
    shape.server.fail = True
    failed = searches(api)
    # Then every search answers, in its first-stage order, and no usage is recorded for it
    assert failed == first
    after = [
        u for u in api.ok("GET", f"{A}/-/usage", limit=100)["usage"] if u["purpose"] == "search"
    ]
    assert len(after) == len(first)


def test_a_top_below_the_hits_reranks_only_the_first(shape):
    api = shape.api
    seed(shape)
    first = searches(api)["one search"]
    api.ok("PUT", A, manifest({**RERANK, "top": 2}), expect=200)
    reranked = searches(api)["one search"]
    assert reranked == zebras_first(first[:2]) + first[2:]
    assert all(len(r["documents"]) == 2 for r in shape.server.requests)


@pytest.mark.parametrize(
    "rerank",
    [
        {"provider": "cohere", "model": MODEL},
        {"provider": "http", "model": MODEL, "top": 0},
        {"provider": "http", "model": MODEL, "top": 101},
        {"provider": "http"},
        {"provider": "onnx", "model": "../../etc"},
    ],
)
def test_a_bad_rerank_setting_is_a_400_and_changes_nothing(shape, rerank):
    api = shape.api
    api.ok("PUT", A, manifest(None), expect=201)
    before = api.ok("GET", A)
    status, body = api.call("PUT", A, manifest(rerank))
    assert status == 400, body
    assert api.ok("GET", A) == before
