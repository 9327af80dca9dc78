"""benchmarks/locomo.py and history_session.py in smoke runs on a tiny LoCoMo-shaped
conversation: records and history loaded through the embedded server, asked, and scored by
LoCoMo's own scorer (read from ../shared/data, where CI keeps it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark_data import SHARED_DATA, tiny_locomo

pytestmark = pytest.mark.e2e

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCORER = SHARED_DATA / "locomo_retrieval.py"


def run(script: str, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]


@pytest.mark.skipif(not SCORER.exists(), reason=f"LoCoMo's scorer is not at {SCORER}")
@pytest.mark.parametrize(
    "target", [["records", "--mode", "lexical"], ["records", "--mode", "hybrid"], ["history"]]
)
def test_a_tiny_conversation_is_loaded_asked_and_scored(tmp_path, target):
    # Given a conversation of eight turns, five observations and four questions
    data = tiny_locomo(tmp_path / "locomo.json")
    out = tmp_path / "results.json"
    # When the benchmark loads it and asks every question
    run("locomo.py", "--target", *target, "--data", str(data), "--scorer", str(SCORER),
        "--out", str(out))  # fmt: skip
    # Then the scorer scored all four, and the easy ones were found
    scores = json.loads(out.with_suffix(".scores.json").read_text())
    assert scores["n_questions"] == 4 and scores["missing_results"] == 0
    assert scores["by_category"]["all"]["turn_hit@10"] == 1.0, scores["by_category"]["all"]
    assert json.loads(out.read_text())["meta"]


def test_a_short_session_history_is_loaded_and_searched(tmp_path):
    # Given ten turns of four events cycling through the tiny conversation's words
    out = tmp_path / "history.json"
    run("history_session.py", "--events", "40", "--queries", "3",
        "--data", str(tiny_locomo(tmp_path / "locomo.json")), "--out", str(out))  # fmt: skip
    report = json.loads(out.read_text())
    # Then every turn was timed and the questions searched
    assert report["events"] == 40 and report["turns"] == 10
    assert report["call_latency"]["commit"]["n"] == 10
    assert report["search_latency"]["n"] == 3


@pytest.mark.skipif(not SCORER.exists(), reason=f"LoCoMo's scorer is not at {SCORER}")
def test_the_reviews_records_are_consolidated_counted_for_twins_and_asked(tmp_path):
    # Given the tiny conversation, reviewed turn by turn
    data = tiny_locomo(tmp_path / "locomo.json")
    out = tmp_path / "results.json"
    # When the benchmark consolidates the agent after its reviews, then asks every question
    run("locomo.py", "--target", "extraction", "--consolidate", "--data", str(data),
        "--scorer", str(SCORER), "--out", str(out))  # fmt: skip
    # Then the run's counts and the twin share are reported, and every question was scored
    meta = json.loads(out.read_text())["meta"]
    [conversation] = meta["per_conversation"]
    counts = conversation["consolidated"]["counts"]
    assert counts["kept"] + counts["merged"] + counts["superseded"] >= 1
    assert 0.0 <= meta["twin_share"] <= 1.0
    scores = json.loads(out.with_suffix(".scores.json").read_text())
    assert scores["n_questions"] == 4 and scores["missing_results"] == 0
