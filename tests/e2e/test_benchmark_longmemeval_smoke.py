"""benchmarks/longmemeval.py in smoke runs on two tiny LongMemEval-shaped haystacks: loaded
through /v1/ingest, asked through search_history in each mode and layout, scored by
LongMemEval's scorer (read from ../shared/data, where CI keeps it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark_data import SHARED_DATA, tiny_longmemeval

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "longmemeval.py"
SCORER = SHARED_DATA / "lme_retrieval.py"


@pytest.mark.skipif(not SCORER.exists(), reason=f"LongMemEval's scorer is not at {SCORER}")
@pytest.mark.parametrize(
    "options", [["--mode", "hybrid"], ["--mode", "lexical", "--layout", "one-session"]]
)
def test_two_tiny_haystacks_are_loaded_asked_and_scored(tmp_path, options):
    # Given two questions, each over three sessions of which one holds the answer
    data = tiny_longmemeval(tmp_path / "lme.json")
    out = tmp_path / "results.json"
    # When the benchmark loads and asks them
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *options, "--data", str(data), "--scorer", str(SCORER),
         "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    # Then both were asked, every event loaded and every hit mapped back, and the gold found
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    meta = json.loads(out.read_text())["meta"]
    assert meta["asked_questions"] == 2 and meta["events"] == 12
    assert meta["unmapped_hits"] == 0
    assert meta["figures"]["all"]["n"] == 2
    assert meta["figures"]["all"]["T-rec@10"] == 1.0
