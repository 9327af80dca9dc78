"""benchmarks/twins.py: the share of an agent's records with a near-twin among them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from agent_memory.domain.search.embeddings import Embedder, Embedding
from benchmark_modules import load_benchmark

pytestmark = pytest.mark.unit

twins = load_benchmark("twins")


class Table(Embedder):
    """The vector each text is given (unit length), in place of a model."""

    model_id = "table"
    dimensions = 2

    def __init__(self, vectors: dict[str, tuple[float, float]]) -> None:
        self.vectors = vectors

    def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
        rows = np.array([self.vectors[t] for t in texts], dtype=np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        return Embedding(rows, self.model_id, len(texts))


def test_records_with_a_neighbour_at_the_threshold_are_twins_and_the_rest_are_not():
    # Given two records 0.95 apart, one 0.87 from them, and one far from all
    embedder = Table({"a": (1.0, 0.0), "b": (0.95, 0.3122), "c": (0.87, -0.493), "d": (0.0, 1.0)})
    # When the share is taken
    report = twins.twin_share(["a", "b", "c", "d"], embedder)
    # Then a and b are twins (2 of 4), c is near only at 0.85, and the pair is the example
    assert (report["records"], report["twins"], report["share"]) == (4, 2, 0.5)
    assert report["share_085"] == 0.75
    assert report["pairs"] == [[0.95, "a", "b"]]


def test_one_record_or_none_has_no_twin():
    assert twins.twin_share(["a"], Table({"a": (1.0, 0.0)}))["share"] == 0.0
    assert twins.twin_share([], Table({}))["twins"] == 0
