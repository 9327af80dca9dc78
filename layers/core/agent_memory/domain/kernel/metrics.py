"""The metrics port: the counts a user watches (turn commits, tool calls by name and outcome,
searches, extraction runs and failures, embedding tokens).

Domain code counts through `Metrics` and never learns where counts go: the embedded shape keeps
none (`NO_METRICS`); in Lambda they are CloudWatch metrics in the Embedded Metric Format
(adapters/observability.PowertoolsMetrics). A count is bookkeeping: an adapter that fails logs
and never fails the request that counted."""

from __future__ import annotations

from typing import Literal, Protocol

Unit = Literal["Count", "Milliseconds"]

# The metric names, one place: dashboards and alarms are written against them.
TURN_COMMITS = "TurnCommits"
TOOL_CALLS = "ToolCalls"
SEARCHES = "Searches"
EXTRACTION_RUNS = "ExtractionRuns"
EXTRACTION_FAILURES = "ExtractionFailures"
EMBEDDING_TOKENS = "EmbeddingTokens"
RERANK_FAILURES = "RerankFailures"


class Metrics(Protocol):
    def count(self, name: str, value: float = 1, unit: Unit = "Count", **dimensions: str) -> None:
        """Add `value` to the metric `name`, counted apart for each set of `dimensions`."""


class NoMetrics:
    """Keeps nothing (the embedded shape, and every service a test builds without metrics)."""

    def count(self, name: str, value: float = 1, unit: Unit = "Count", **dimensions: str) -> None:
        return None


NO_METRICS: Metrics = NoMetrics()
