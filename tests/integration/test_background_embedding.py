"""Commits never wait for embeddings (embedded shape): a write indexes its words in its own
transaction and queues its vectors; the background embedder adds them later. Until then a
document is found by words, and by meaning once its vector is there."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.adapters.sqlite.vectors import BackgroundEmbedder
from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.domain.search.embeddings import Embedder, Embedding
from agent_memory.settings import Settings
from apiclient import ApiClient

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "tools": ["add_memory"],
        },
        "history": {"index": "messages"},
    }
}


class CountingEmbedder(Embedder):
    """The real model, counting its calls; `fail_on` makes a text fail as a model might."""

    def __init__(self, real: Embedder, fail_on: str | None = None) -> None:
        self.real = real
        self.model_id = real.model_id
        self.dimensions = real.dimensions
        self.calls: list[list[str]] = []
        self.fail_on = fail_on
        self.down = False

    def embed(self, texts, *, query: bool = False) -> Embedding:
        poisoned = self.fail_on is not None and any(self.fail_on in t for t in texts)
        if self.down or (poisoned and not query):
            raise RuntimeError("the model failed")
        self.calls.append(list(texts))
        return self.real.embed(texts, query=query)


@pytest.fixture
def sqlite(tmp_path):
    store = SqliteStore(tmp_path / "db.sqlite3")
    yield store
    store.close()


def open_api(sqlite, tmp_path, embedder):
    services = build_services(Settings(data_dir=tmp_path), store=sqlite, embedder=embedder)
    return services, ApiClient(Api(services).handle)


def until(done, seconds: float = 10.0) -> bool:
    """Whether `done()` came true within `seconds` (the background thread's work)."""
    for _ in range(int(seconds / 0.05)):
        if done():
            return True
        threading.Event().wait(0.05)
    return bool(done())


def turn_path(api) -> str:
    session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    turn = api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)["id"]
    return f"{A}/-/sessions/{session}/turns/{turn}"


def tool(api, turn, name, **args):
    return api.ok("POST", f"{turn}/tools/{name}", {**args, "caller": {"role": "agent"}})["output"]


def vector_search(api, query: str) -> list[str]:
    """Records found by meaning alone (a turn of a manifest version searching by vector)."""
    by_meaning = {"harness": {**MANIFEST["harness"]}}
    by_meaning["harness"]["memory"] = {
        **MANIFEST["harness"]["memory"],
        "search": {"mode": "vector"},
    }
    api.ok("PUT", A, by_meaning)
    turn = turn_path(api)
    found = tool(api, turn, "search_memory", query=query)
    api.ok("POST", f"{turn}/rollback")
    api.ok("PUT", A, MANIFEST)
    return [r["summary"] for r in found["records"]]


def test_a_commit_embeds_nothing_and_its_writes_are_found_by_words_until_their_vectors_come(
    sqlite, tmp_path, embedder
):
    counting = CountingEmbedder(embedder)
    services, api = open_api(sqlite, tmp_path, counting)
    api.ok("PUT", A, MANIFEST, expect=201)
    turn = turn_path(api)
    api.ok(
        "POST",
        f"{turn}/events",
        {"events": [{"role": "user", "text": "I play the violin on weekends"}]},
    )
    tool(api, turn, "add_memory", summary="The user plays the violin", scope="agent")
    api.ok("POST", f"{turn}/commit")
    # The commit called the model for nothing: its record and event wait in the queue.
    assert counting.calls == []
    detail = api.ok("GET", turn)
    assert detail["pendingVectors"] == 2
    assert api.ok("GET", f"{A}/-/index") == {
        "pendingVectors": 2,
        "embeddingModel": embedder.model_id,
    }
    # Found by words at once; by meaning alone, not yet.
    reader = turn_path(api)
    assert [
        r["summary"] for r in tool(api, reader, "search_memory", query="violin")["records"]
    ] == ["The user plays the violin"]
    api.ok("POST", f"{reader}/rollback")
    assert vector_search(api, "musical instrument") == []

    # When the background embedder has run: one call for both texts, found by meaning, the
    # embedding billed to the turn that wrote them.
    queries = len(counting.calls)
    assert services.drain_vectors() == 2
    assert [sorted(c) for c in counting.calls[queries:]] == [
        ["I play the violin on weekends", "The user plays the violin"]
    ]
    assert vector_search(api, "musical instrument") == ["The user plays the violin"]
    detail = api.ok("GET", turn)
    assert detail["pendingVectors"] == 0
    embed_rows = [u for u in detail["usage"] if u["purpose"] == "embed"]
    assert len(embed_rows) == 1 and embed_rows[0]["inputTokens"] > 0


def test_what_a_stopped_server_left_queued_is_embedded_after_a_restart(tmp_path, embedder):
    path = tmp_path / "db.sqlite3"
    first = SqliteStore(path)
    services, api = open_api(first, tmp_path, embedder)
    api.ok("PUT", A, MANIFEST, expect=201)
    turn = turn_path(api)
    tool(api, turn, "add_memory", summary="The user plays the violin", scope="agent")
    api.ok("POST", f"{turn}/commit")
    services.close()  # stopped before its embedder ran

    again = SqliteStore(path)
    services, api = open_api(again, tmp_path, embedder)
    assert api.ok("GET", f"{A}/-/index")["pendingVectors"] == 1
    services.vectors.run_in_background()
    try:
        assert until(lambda: api.ok("GET", f"{A}/-/index")["pendingVectors"] == 0)
        assert vector_search(api, "musical instrument") == ["The user plays the violin"]
    finally:
        services.close()


def test_an_edited_memory_loses_its_old_meaning_until_the_new_one_is_embedded(
    sqlite, tmp_path, embedder
):
    services, api = open_api(sqlite, tmp_path, embedder)
    api.ok("PUT", A, MANIFEST, expect=201)
    memories = f"{A}/-/memories"
    api.ok("PUT", f"{memories}/hobby.md", {"content": "The user plays the violin\n"}, expect=201)
    services.drain_vectors()
    assert [m["path"] for m in api.ok("GET", memories, query="musical instrument")["memories"]] == [
        "/memories/hobby.md"
    ]
    api.ok("PUT", f"{memories}/hobby.md", {"content": "The user grows tomatoes\n"})
    # The old vector no longer stands for the memory; words find the new text at once.
    assert api.ok("GET", memories, query="musical instrument")["memories"] == []
    assert [m["path"] for m in api.ok("GET", memories, query="tomatoes")["memories"]] == [
        "/memories/hobby.md"
    ]
    services.drain_vectors()
    assert [m["path"] for m in api.ok("GET", memories, query="vegetable garden")["memories"]] == [
        "/memories/hobby.md"
    ]


def test_a_text_the_model_fails_on_is_left_to_words_and_holds_nothing_back(
    sqlite, tmp_path, embedder
):
    counting = CountingEmbedder(embedder, fail_on="poison")
    services, api = open_api(sqlite, tmp_path, counting)
    api.ok("PUT", A, MANIFEST, expect=201)
    turn = turn_path(api)
    for summary in ("The user plays the violin", "poison text", "The user grows tomatoes"):
        tool(api, turn, "add_memory", summary=summary, scope="agent")
    api.ok("POST", f"{turn}/commit")
    assert services.drain_vectors() == 2
    assert api.ok("GET", f"{A}/-/index")["pendingVectors"] == 0
    assert vector_search(api, "musical instrument")[0] == "The user plays the violin"
    reader = turn_path(api)
    assert [
        r["summary"] for r in tool(api, reader, "search_memory", query="poison")["records"]
    ] == ["poison text"]


def test_a_model_that_is_down_keeps_the_queue_for_later(sqlite, tmp_path, embedder):
    counting = CountingEmbedder(embedder)
    services, api = open_api(sqlite, tmp_path, counting)
    api.ok("PUT", A, MANIFEST, expect=201)
    turn = turn_path(api)
    tool(api, turn, "add_memory", summary="The user plays the violin", scope="agent")
    tool(api, turn, "add_memory", summary="The user grows tomatoes", scope="agent")
    api.ok("POST", f"{turn}/commit")
    counting.down = True
    with pytest.raises(RuntimeError):
        services.drain_vectors()
    assert api.ok("GET", f"{A}/-/index")["pendingVectors"] == 2
    counting.down = False
    assert services.drain_vectors() == 2


def test_a_deleted_agent_leaves_nothing_queued(sqlite, tmp_path, embedder):
    services, api = open_api(sqlite, tmp_path, embedder)
    api.ok("PUT", A, MANIFEST, expect=201)
    turn = turn_path(api)
    tool(api, turn, "add_memory", summary="The user plays the violin", scope="agent")
    api.ok("POST", f"{turn}/commit")
    api.ok("DELETE", A, expect=204)
    assert sqlite.index is not None and sqlite.index.queued_count() == 0
    assert services.drain_vectors() == 0


def test_a_newer_version_queued_meanwhile_is_not_overwritten_by_the_older_vector(
    sqlite, tmp_path, embedder
):
    services, api = open_api(sqlite, tmp_path, embedder)
    api.ok("PUT", A, MANIFEST, expect=201)
    memories = f"{A}/-/memories"
    api.ok("PUT", f"{memories}/hobby.md", {"content": "The user plays the violin\n"}, expect=201)
    index = sqlite.index
    assert index is not None
    # The embedder took the first version's text, and while it embedded the memory changed.
    taken = index.queued(10)
    api.ok("PUT", f"{memories}/hobby.md", {"content": "The user grows tomatoes\n"})
    stale = embedder.embed([taken[0].text])
    assert index.add_vectors(taken, stale.vectors, stale.model_id) == []
    assert index.queued_count() == 1
    services.drain_vectors()
    found = api.ok("GET", memories, query="vegetable garden")["memories"]
    assert [m["path"] for m in found] == ["/memories/hobby.md"]
    assert api.ok("GET", memories, query="musical instrument")["memories"] == []


def test_the_thread_embeds_in_the_background_and_stops_cleanly(sqlite, tmp_path, embedder):
    services, api = open_api(sqlite, tmp_path, embedder)
    api.ok("PUT", A, MANIFEST, expect=201)
    assert isinstance(services.vectors, BackgroundEmbedder)
    services.vectors.run_in_background()
    try:
        turn = turn_path(api)
        tool(api, turn, "add_memory", summary="The user plays the violin", scope="agent")
        api.ok("POST", f"{turn}/commit")
        assert until(lambda: services.vectors.backlog == 0)
        assert vector_search(api, "musical instrument") == ["The user plays the violin"]
    finally:
        services.vectors.stop()


def test_vectors_are_unit_length_float32_rows_of_the_model(sqlite, tmp_path, embedder):
    services, api = open_api(sqlite, tmp_path, embedder)
    api.ok("PUT", A, MANIFEST, expect=201)
    turn = turn_path(api)
    tool(api, turn, "add_memory", summary="The user plays the violin", scope="agent")
    api.ok("POST", f"{turn}/commit")
    services.drain_vectors()
    row = sqlite.db.read().execute("SELECT model_id, vector FROM search_docs").fetchone()
    vector = np.frombuffer(row["vector"], dtype=np.float32)
    assert row["model_id"] == embedder.model_id
    assert vector.shape == (embedder.dimensions,)
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-4
