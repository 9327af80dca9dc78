"""The metrics port: the counts a user watches (turn commits, tool calls by name and outcome,
searches, extraction runs and failures, embedding tokens).

Domain code counts through `Metrics` and never learns where counts go: the embedded shape keeps
none (`NO_METRICS`); in Lambda they are CloudWatch metrics in the Embedded Metric Format
(adapters/observability.PowertoolsMetrics). A count is bookkeeping: an adapter that fails logs
and never fails the request that counted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from ..search.embeddings import Embedder, Embedding

Unit = Literal["Count", "Milliseconds"]

# The metric names, one place: dashboards and alarms are written against them.
TURN_COMMITS = "TurnCommits"
TOOL_CALLS = "ToolCalls"
SEARCHES = "Searches"
EXTRACTION_RUNS = "ExtractionRuns"
EXTRACTION_FAILURES = "ExtractionFailures"
EMBEDDING_TOKENS = "EmbeddingTokens"


class Metrics(Protocol):
    def count(self, name: str, value: float = 1, unit: Unit = "Count", **dimensions: str) -> None:
        """Add `value` to the metric `name`, counted apart for each set of `dimensions`."""


class NoMetrics:
    """Keeps nothing (the embedded shape, and every service a test builds without metrics)."""

    def count(self, name: str, value: float = 1, unit: Unit = "Count", **dimensions: str) -> None:
        return None


NO_METRICS: Metrics = NoMetrics()


class MeteredEmbedder(Embedder):
    """An embedder whose every call counts its input tokens by model: wrapped once, by the
    composition root, so every caller (search, indexing, extraction) is counted alike."""

    def __init__(self, inner: Embedder, metrics: Metrics) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dimensions = inner.dimensions
        self._metrics = metrics

    def load(self) -> None:
        self.inner.load()

    def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
        embedding = self.inner.embed(texts, query=query)
        self._metrics.count(EMBEDDING_TOKENS, embedding.input_tokens, model=embedding.model_id)
        return embedding
