"""The embeddings port: text in, unit-length float32 vectors out, with the usage it cost."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..kernel.metrics import EMBEDDING_TOKENS, Metrics


@dataclass(frozen=True)
class Embedding:
    """Vectors for a batch of texts, L2-normalised, so a dot product is the cosine."""

    # One float32 row per text, in order: a numpy array of shape (len(texts), dimensions), or a
    # list of array("f") rows (BedrockEmbedder: the Lambda layer has no numpy). Callers index,
    # slice and iterate it, and take dot products with `dot`.
    vectors: Any
    model_id: str
    input_tokens: int
    # Each text's share of input_tokens, where the model says (to bill each text's owner).
    tokens: Sequence[int] | None = None

    def tokens_of(self, texts: Sequence[str]) -> list[int]:
        """Each text's tokens: the model's own counts, else input_tokens shared by length."""
        if self.tokens is not None:
            return list(self.tokens)
        total = sum(len(t) for t in texts) or 1
        return [round(self.input_tokens * len(t) / total) for t in texts]


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    """The dot product of two rows of `Embedding.vectors` (of unit rows: their cosine)."""
    return float(sum(x * y for x, y in zip(a, b, strict=True)))


class Embedder(ABC):
    """Turns text into vectors. Each call is recorded by the caller as usage of purpose embed."""

    model_id: str
    dimensions: int

    @abstractmethod
    def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
        """Embed `texts`; `query` marks a search query (some models embed queries differently)."""

    def load(self) -> None:  # noqa: B027 - most embedders have nothing to ready
        """Ready what the first `embed` would otherwise ready (a local model's files), so that
        the embedded server can do it at start, off the requests' path. Raises what `embed`
        would raise."""


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
