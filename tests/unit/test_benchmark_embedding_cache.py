"""benchmarks/embedding_cache.py: a benchmark run over data embedded before embeds nothing again,
and what it answers is what the model answered."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from agent_memory.domain.search.embeddings import Embedder, Embedding
from benchmark_modules import load_benchmark

pytestmark = pytest.mark.unit

embedding_cache = load_benchmark("embedding_cache")


class CountingEmbedder(Embedder):
    """A vector and a token count of its own for each text; records what it was asked."""

    model_id = "counting"
    dimensions = 3

    def __init__(self) -> None:
        self.asked: list[tuple[list[str], bool]] = []

    def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
        self.asked.append((list(texts), query))
        vectors = np.array([[len(t), float(query), 0.5] for t in texts], dtype=np.float32)
        tokens = [len(t.split()) for t in texts]
        return Embedding(vectors, self.model_id, sum(tokens), tokens)


def test_a_text_embedded_once_is_not_embedded_again_and_comes_back_as_the_model_gave_it(tmp_path):
    model = CountingEmbedder()
    cached = embedding_cache.CachedEmbedder(model, tmp_path / "cache.sqlite3")
    first = cached.embed(["one two", "three"])
    again = cached.embed(["three", "four five six", "one two"])

    assert model.asked == [(["one two", "three"], False), (["four five six"], False)]
    assert again.vectors.tolist() == [[5, 0, 0.5], [13, 0, 0.5], [7, 0, 0.5]]
    assert first.vectors.tolist() == [[7, 0, 0.5], [5, 0, 0.5]]
    assert again.tokens == [1, 3, 2] and again.input_tokens == 6
    assert (cached.hits, cached.misses) == (2, 3)


def test_a_query_is_kept_apart_from_a_document_of_the_same_words(tmp_path):
    model = CountingEmbedder()
    cached = embedding_cache.CachedEmbedder(model, tmp_path / "cache.sqlite3")
    cached.embed(["dinner plans"])
    query = cached.embed(["dinner plans"], query=True)
    assert model.asked[-1] == (["dinner plans"], True)
    assert query.vectors.tolist() == [[12, 1, 0.5]]


def test_a_later_run_reads_what_an_earlier_one_wrote(tmp_path):
    path = tmp_path / "cache.sqlite3"
    embedding_cache.CachedEmbedder(CountingEmbedder(), path).embed(["kept"])
    later_model = CountingEmbedder()
    later = embedding_cache.CachedEmbedder(later_model, path).embed(["kept"])
    assert later_model.asked == []
    assert later.vectors.tolist() == [[4, 0, 0.5]]
