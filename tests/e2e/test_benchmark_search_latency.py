"""benchmarks/search_latency.py in its smoke mode: a few records an agent loaded as a commit
leaves them, searched in-process, over HTTP and in the index, and found by their unique token."""

from __future__ import annotations

import importlib.util
import json

import pytest

from benchmark_modules import run_benchmark

pytestmark = pytest.mark.e2e


def test_the_smoke_run_times_every_series_and_finds_the_oldest_and_newest_record(tmp_path):
    # Given the benchmark in its smoke mode (ChromaDB's series only where the bench extra is in)
    out = tmp_path / "latency.json"
    # When it runs
    run_benchmark("search_latency.py", "--smoke", "--out", str(out))
    # Then every series answered with hits, and ranked search reached both ends of the agent
    report = json.loads(out.read_text())
    (size,) = report["sizes"]
    assert size["records"] == 60 and size["records_all_agents"] == 120
    assert set(size["service"]) == {"hybrid", "hybrid, vector given", "hybrid + label", "listing"}
    assert set(size["http"]) == {"hybrid", "hybrid + label", "listing"}
    assert set(size["index"]) == {"lexical (50)", "vector", "vector + label", "hybrid"}
    for group in ("service", "http", "index"):
        for name, series in size[group].items():
            assert series["p50_ms"] > 0, (group, name)
    assert (
        size["service"]["hybrid"]["mean_hits"]
        == size["service"]["hybrid, vector given"]["mean_hits"]
    )
    assert size["service"]["listing"]["mean_hits"] == 10
    assert size["coverage_probe"] == {"oldest": True, "newest": True}
    chromadb = importlib.util.find_spec("chromadb") is not None
    assert report["chromadb"] is chromadb
    assert bool(size["chromadb"]) is chromadb
