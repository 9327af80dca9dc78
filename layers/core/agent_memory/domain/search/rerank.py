"""The rerank stage: a model scores a search's first hits against the query and puts them in
its order (harness.memory.search.rerank; off unless the manifest asks).

A rerank is a refinement, never a dependency: when the model fails, is too slow, or its provider
is not configured on this deployment, the search returns its first-stage order, logs why, and
counts the failure (metric RerankFailures). Each call is usage of purpose `search`, with its
latency and the documents it scored.
"""

from __future__ import annotations

import logging
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..kernel.metrics import NO_METRICS, RERANK_FAILURES, Metrics
from ..manifests import RerankConfig
from ..usage import UsageEntry

logger = logging.getLogger(__name__)

T = TypeVar("T")

# A document past this many characters is cut: cross-encoders read a few hundred tokens, and
# Bedrock refuses a text over 32,000 characters.
DOCUMENT_CHARS = 4_000


class RerankFailed(Exception):
    """A reranker could not score (the service refused or timed out, the model would not load,
    the answer was malformed). Adapters raise it from their own errors; the stage falls back."""


@dataclass(frozen=True)
class Scores:
    """One score a document, in the order the documents were given; higher is more relevant.
    `input_tokens`: what the provider reports it read (0 where it says nothing)."""

    scores: Sequence[float]
    input_tokens: int = 0


class Reranker(ABC):
    """Scores documents against a query with a model (a cross-encoder, here or in a service)."""

    provider: str

    @abstractmethod
    def score(self, model: str, query: str, documents: Sequence[str]) -> Scores:
        """Scores for `documents` against `query` by `model`; raises RerankFailed."""

    def model_id(self, model: str) -> str:
        """The model as usage names it."""
        return model


class RerankStage:
    """Applies an agent's rerank setting to a ranked list, with the rerankers this deployment
    has (one a provider)."""

    def __init__(self, rerankers: Mapping[str, Reranker], metrics: Metrics = NO_METRICS) -> None:
        self._rerankers = dict(rerankers)
        self._metrics = metrics

    def apply(
        self,
        query: str,
        hits: Sequence[T],
        text: Callable[[T], str],
        config: RerankConfig | None,
    ) -> tuple[list[T], list[UsageEntry]]:
        """`hits` with the first `config.top` in the reranker's order (ties keep their first
        order), the rest after them as they were; and the call's usage. Unchanged when no
        rerank is set, or when it fails."""
        if config is None or not hits:
            return list(hits), []
        reranker = self._rerankers.get(config.provider)
        if reranker is None:
            self._failed(config, "its provider is not configured on this deployment")
            return list(hits), []
        head = list(hits[: config.top])
        documents = [text(h)[:DOCUMENT_CHARS] or " " for h in head]
        started = time.monotonic()
        try:
            scored = reranker.score(config.model, query, documents)
            if len(scored.scores) != len(head):
                raise RerankFailed(
                    f"{len(scored.scores)} scores came back for {len(head)} documents"
                )
            if not all(math.isfinite(s) for s in scored.scores):
                raise RerankFailed("a score came back that is not a finite number")
        except RerankFailed as exc:
            self._failed(config, str(exc))
            return list(hits), []
        latency_ms = round((time.monotonic() - started) * 1000)
        order = sorted(range(len(head)), key=lambda i: -scored.scores[i])
        usage = UsageEntry(
            "search",
            reranker.model_id(config.model),
            scored.input_tokens,
            latency_ms=latency_ms,
            documents=len(head),
        )
        return [head[i] for i in order] + list(hits[config.top :]), [usage]

    def _failed(self, config: RerankConfig, why: str) -> None:
        # One line a failed search (not one a hit); the first-stage order stands.
        logger.warning(
            "rerank skipped: first-stage order kept",
            extra={"provider": config.provider, "model": config.model, "reason": why},
        )
        self._metrics.count(RERANK_FAILURES, provider=config.provider)


NO_RERANK = RerankStage({})
