"""benchmarks/volume.py's four measures in smoke runs against the embedded server: a tiny
LongMemEval-shaped history loaded, commits while its vectors are queued, clients at once, and
`agent-memory ingest` of a few hundred events."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark_data import tiny_longmemeval

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "volume.py"


def run(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return json.loads(done.stdout)


def test_a_history_is_searchable_by_words_then_by_meaning(tmp_path):
    data = tiny_longmemeval(tmp_path / "lme.json", questions=1)
    result = run("load", "--data", str(data))
    assert result["events"] == 6 and result["failed"] == 0
    assert 0 < result["searchable_by_words_s"] <= result["every_vector_s"]


def test_commits_are_timed_while_vectors_wait(tmp_path):
    data = tiny_longmemeval(tmp_path / "lme.json", questions=1)
    result = run("commits", "--turns", "3", "--data", str(data))
    assert result["commit"]["n"] == 3 and result["append"]["n"] == 3


def test_two_clients_at_once_are_timed_against_one():
    result = run("concurrency", "--seconds", "2", "--clients", "2")
    assert result["one_client"]["ops"] and result["many_clients"]["ops"]
    assert set(result["read_p99_under_load_over_p50_alone"]) <= {
        "search_memory",
        "search_history",
        "get_record",
    }


def test_a_few_hundred_events_are_ingested_through_the_cli():
    result = run("ingest", "--events", "200")
    assert result["events"] == 200 and result["lines"] == 300
    assert result["events_per_s_to_searchable_by_words"] > 0
