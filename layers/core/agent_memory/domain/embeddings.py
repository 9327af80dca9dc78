"""The embeddings port: text in, unit-length float32 vectors out, with the usage it cost."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Embedding:
    """Vectors for a batch of texts, L2-normalised, so a dot product is the cosine."""

    vectors: Any  # numpy.ndarray of shape (len(texts), dimensions), float32
    model_id: str
    input_tokens: int


class Embedder(ABC):
    """Turns text into vectors. Each call is recorded by the caller as usage of purpose embed."""

    model_id: str
    dimensions: int

    @abstractmethod
    def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
        """Embed `texts`; `query` marks a search query (some models embed queries differently)."""
