"""The rerank stage (domain/search/rerank.py): how a reranker's scores reorder a search's first
hits, what stays in place, and that a failed rerank never fails the search; and the manifest's
harness.memory.search.rerank setting, validated strictly."""

from collections.abc import Sequence

import pytest
from pydantic import ValidationError

from agent_memory.domain.kernel.metrics import RERANK_FAILURES
from agent_memory.domain.manifests import Manifest, RerankConfig
from agent_memory.domain.search import NO_RERANK, Reranker, RerankFailed, RerankStage, Scores

pytestmark = pytest.mark.unit


class Marked(Reranker):
    """Scores a document by how often it says `marker`; records what it was asked."""

    provider = "http"

    def __init__(self, marker: str = "zebra") -> None:
        self.marker = marker
        self.calls: list[tuple[str, str, list[str]]] = []

    def score(self, model: str, query: str, documents: Sequence[str]) -> Scores:
        self.calls.append((model, query, list(documents)))
        return Scores([float(d.count(self.marker)) for d in documents], input_tokens=7)


class Broken(Reranker):
    provider = "http"

    def __init__(self, scores: Sequence[float] | None = None) -> None:
        self.scores = scores

    def score(self, model: str, query: str, documents: Sequence[str]) -> Scores:
        if self.scores is None:
            raise RerankFailed("the service answered 503")
        return Scores(self.scores)


class Counted:
    def __init__(self) -> None:
        self.counts: list[tuple[str, dict[str, str]]] = []

    def count(self, name, value=1, unit="Count", **dimensions):
        self.counts.append((name, dimensions))


def config(top: int = 3, provider: str = "http") -> RerankConfig:
    return RerankConfig.model_validate({"provider": provider, "model": "m", "top": top})


HITS = ["a", "b zebra", "c", "d zebra zebra", "e zebra zebra zebra"]


def test_the_first_top_hits_take_the_rerankers_order_and_the_rest_follow_as_they_were():
    # Given five hits, and a rerank of the first three
    reranker = Marked()
    stage = RerankStage({"http": reranker})
    # When they are reranked
    ordered, usage = stage.apply("q", HITS, str, config(top=3))
    # Then the first three are in the reranker's order (ties keep their first-stage order), and
    # the two past `top` follow unscored, in their order, though they would score higher
    assert ordered == ["b zebra", "a", "c", "d zebra zebra", "e zebra zebra zebra"]
    assert reranker.calls == [("m", "q", ["a", "b zebra", "c"])]
    # And the call is usage of purpose search: the model, its tokens, latency and documents
    (entry,) = usage
    assert (entry.purpose, entry.model_id, entry.input_tokens, entry.documents) == (
        "search",
        "m",
        7,
        3,
    )
    assert entry.latency_ms is not None and entry.latency_ms >= 0
    assert entry.as_dict()["latencyMs"] == entry.latency_ms


def test_a_top_past_the_hits_reranks_them_all():
    ordered, _ = RerankStage({"http": Marked()}).apply("q", HITS, str, config(top=100))
    assert ordered == ["e zebra zebra zebra", "d zebra zebra", "b zebra", "a", "c"]


def test_without_a_rerank_setting_nothing_is_called_and_nothing_moves():
    reranker = Marked()
    assert RerankStage({"http": reranker}).apply("q", HITS, str, None) == (HITS, [])
    assert NO_RERANK.apply("q", [], str, config()) == ([], [])
    assert reranker.calls == []


@pytest.mark.parametrize(
    ("rerankers", "why"),
    [
        ({"http": Broken()}, "the service fails"),
        ({"http": Broken([1.0])}, "too few scores"),
        ({"http": Broken([1.0, float("nan"), 0.0])}, "a score that is not a number"),
        ({}, "the provider is not configured here"),
    ],
)
def test_a_failed_rerank_keeps_the_first_stage_order_and_is_counted(rerankers, why, caplog):
    # Given a reranker that fails (or none for the provider the manifest names)
    metrics = Counted()
    stage = RerankStage(rerankers, metrics)
    # When a search is reranked
    ordered, usage = stage.apply("q", HITS, str, config(top=3))
    # Then its first-stage order stands, nothing is usage, the failure is counted and logged once
    assert ordered == HITS, why
    assert usage == []
    assert metrics.counts == [(RERANK_FAILURES, {"provider": "http"})]
    assert [r.message for r in caplog.records] == ["rerank skipped: first-stage order kept"]


def test_long_documents_are_cut_and_empty_ones_sent_as_a_space():
    reranker = Marked()
    RerankStage({"http": reranker}).apply("q", ["x" * 10_000, ""], str, config())
    sent = reranker.calls[0][2]
    assert [len(d) for d in sent] == [4_000, 1]


# -- the manifest setting ---------------------------------------------------------------------


def search(**rerank):
    return {"harness": {"memory": {"search": {"rerank": rerank}}}}


def test_rerank_is_off_by_default_and_kept_as_given():
    assert Manifest.model_validate({"harness": {"memory": {}}}).harness.memory.search.rerank is None
    given = Manifest.model_validate(search(provider="bedrock", model="amazon.rerank-v1:0"))
    document = given.document()["harness"]["memory"]["search"]["rerank"]
    assert document == {"provider": "bedrock", "model": "amazon.rerank-v1:0", "top": 20}


@pytest.mark.parametrize(
    "rerank",
    [
        {"provider": "cohere", "model": "m"},  # not a provider
        {"model": "m"},  # no provider
        {"provider": "http"},  # no model
        {"provider": "http", "model": ""},
        {"provider": "http", "model": "m", "top": 0},
        {"provider": "http", "model": "m", "top": 101},
        {"provider": "http", "model": "m", "top": "10"},  # strict: not a string
        {"provider": "http", "model": "m", "top": 10.0},
        {"provider": "http", "model": "m", "depth": 10},  # unknown field
        {"provider": "onnx", "model": "../elsewhere"},  # out of the model root
        {"provider": "onnx", "model": "/opt/models/x"},
    ],
)
def test_a_bad_rerank_setting_is_refused(rerank):
    with pytest.raises(ValidationError):
        Manifest.model_validate(search(**rerank))


def test_an_onnx_model_may_name_a_nested_directory():
    rerank = Manifest.model_validate(search(provider="onnx", model="cross-encoder/ms-marco"))
    assert rerank.harness.memory.search.rerank == RerankConfig(
        provider="onnx", model="cross-encoder/ms-marco", top=20
    )
