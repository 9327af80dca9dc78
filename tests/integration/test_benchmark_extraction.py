"""The extraction benchmarks in smoke runs: extraction_corpus.py's decisions on the corpus (model
alone and the service on SQLite), and extraction_cloud.py's reviews of a few turns of a tiny
LoCoMo-shaped conversation under moto (model calls, write units, state transitions)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark_data import tiny_locomo

pytestmark = pytest.mark.integration

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_the_corpus_is_decided_by_the_model_and_by_the_service():
    # When every conversation of the corpus is reviewed, lexical neighbours
    out = run("extraction_corpus.py").stdout
    # Then the three tables are printed, and the service reviewed every conversation
    assert out.count("### ") == 3
    conversations = int(re.match(r"(\d+) conversations", out).group(1))  # type: ignore[union-attr]
    assert f"\n{conversations} reviews in " in out
    assert "garbled summaries: 0;" in out


def test_a_few_reviewed_turns_are_priced_in_the_cloud_shape(tmp_path):
    # Given three turns of a tiny conversation, each reviewed by the state machine under moto
    out = tmp_path / "cloud.json"
    run(
        "extraction_cloud.py",
        "--turns", "3",
        "--data", str(tiny_locomo(tmp_path / "locomo.json")),
        "--out", str(out),
    )  # fmt: skip
    report = json.loads(out.read_text())
    # Then each review finished, with its transitions, write units and at most two model calls
    assert report["summary"]["turns"] == 3 and len(report["reviews"]) == 3
    for review in report["reviews"]:
        assert review["status"] == "done"
        assert review["state_transitions"] >= 6 and review["write_units"] > 0
        assert 1 <= review["model_calls"] <= 2
