"""The domain's Metrics port (domain/kernel/metrics.py): what the domain counts, seen through a
recording adapter, with no AWS anywhere."""

from collections.abc import Sequence

import numpy as np

from agent_memory.domain.kernel.metrics import NO_METRICS
from agent_memory.domain.search.embeddings import Embedder, Embedding, MeteredEmbedder
from agent_memory.domain.search.index import IndexFilter
from agent_memory.domain.search.service import CANDIDATES, SearchService


class Recorded:
    def __init__(self) -> None:
        self.counts: list[tuple[str, float, dict[str, str]]] = []

    def count(self, name: str, value: float = 1, unit: str = "Count", **dimensions: str) -> None:
        self.counts.append((name, value, dimensions))


class Words(Embedder):
    model_id = "test-model"
    dimensions = 2

    def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
        vectors = np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)
        return Embedding(vectors, self.model_id, input_tokens=sum(len(t.split()) for t in texts))


class EmptyIndex:
    """Finds nothing: these tests are about what is counted, not what is found."""

    links = None  # keeps no entity links

    def lexical(self, *args: object) -> list:
        return []

    def vector(self, *args: object) -> list:
        return []


def test_a_metered_embedder_counts_each_calls_tokens_by_model_and_embeds_as_its_inner():
    metrics = Recorded()
    embedder = MeteredEmbedder(Words(), metrics)
    assert (embedder.model_id, embedder.dimensions) == ("test-model", 2)
    embedding = embedder.embed(["three words here", "two more"])
    assert embedding.input_tokens == 5
    assert metrics.counts == [("EmbeddingTokens", 5, {"model": "test-model"})]


def test_a_search_is_counted_once_by_kind_and_mode_however_deep_it_looks():
    metrics = Recorded()
    search = SearchService(EmptyIndex(), None, inline=False, metrics=metrics)
    where = IndexFilter(kind="event")
    search.rank("acme", "a", "hello", where, "lexical", None)
    search.rank("acme", "a", "hello", where, "lexical", None, depth=CANDIDATES * 4)
    search.rank_kinds("acme", "a", "hello", [where, IndexFilter()], "lexical", None)
    assert metrics.counts == [
        ("Searches", 1, {"kind": "event", "mode": "lexical"}),
        ("Searches", 1, {"kind": "all", "mode": "lexical"}),
    ]


def test_the_embedded_shape_keeps_no_metrics_and_the_cloud_writes_emf(monkeypatch):
    from agent_memory.adapters.observability import PowertoolsMetrics
    from agent_memory.bootstrap import build_metrics, metered
    from agent_memory.settings import Settings

    assert build_metrics(Settings()) is NO_METRICS
    embedder = Words()
    assert metered(embedder, NO_METRICS) is embedder  # nothing wrapped where nothing counts
    monkeypatch.setenv("AGENT_MEMORY_STORE", "dynamodb")
    monkeypatch.setenv("AGENT_MEMORY_TABLE_NAME", "t")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    assert isinstance(build_metrics(Settings()), PowertoolsMetrics)
