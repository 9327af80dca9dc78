"""History search with the learned fusion on (AGENT_MEMORY_SEARCH_FUSION=learned): the embedded
server orders its history hits by the model, over the same candidates the hand-set weights
rank; off (the default), the hand-set order."""

import pytest

from agent_memory import bootstrap
from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.domain.search import FEATURES, LearnedFusion
from agent_memory.domain.search import fusion as fusion_model
from agent_memory.settings import Settings
from apiclient import ApiClient, drained

pytestmark = pytest.mark.integration

A = "/v1/agents/friends/assistant"
QUERY = "hiking trip in the mountains"
SAID = [
    "we planned a hiking trip in the mountains for the summer",
    "the mountains were covered in snow when we went hiking",
    "I bought new boots for the trip",
]


def served(tmp_path, embedder, fusion: str) -> ApiClient:
    store = bootstrap.build_store(Settings(data_dir=tmp_path / fusion))
    services = build_services(
        Settings(data_dir=tmp_path / fusion, search_fusion=fusion), store=store, embedder=embedder
    )
    api = ApiClient(drained(Api(services).handle, services))
    api.ok("PUT", A, {"harness": {"history": {"index": "messages"}}}, expect=201)
    sid = api.ok("POST", f"{A}/-/sessions", {}, expect=201)["id"]
    for text in SAID:
        turn = api.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
        path = f"{A}/-/sessions/{sid}/turns/{turn}"
        api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": text}]})
        api.ok("POST", f"{path}/commit")
    return api


def found(api: ApiClient) -> list[str]:
    events = api.ok("GET", f"{A}/-/history", query=QUERY, limit=3)["events"]
    return [SAID.index(e["text"].split("\n", 1)[1]) for e in events]


def weighing(**weights: float) -> LearnedFusion:
    return LearnedFusion(tuple(weights.get(name, 0.0) for name in FEATURES))


def test_the_learned_fusion_orders_history_hits_by_its_model(tmp_path, embedder, monkeypatch):
    # Given the hand-set order of a conversation's messages for a query
    fixed = found(served(tmp_path, embedder, "fixed"))
    assert sorted(fixed) == [0, 1, 2] and fixed != [2, 1, 0]

    # When the server runs a model weighing the hand-set score alone, then the order is the same
    monkeypatch.setattr(fusion_model, "learned", lambda: weighing(fixed=1.0))
    assert found(served(tmp_path / "same", embedder, "learned")) == fixed

    # And a model weighing recency alone returns the newest first
    monkeypatch.setattr(fusion_model, "learned", lambda: weighing(recency=1.0))
    assert found(served(tmp_path / "newest", embedder, "learned")) == [2, 1, 0]
