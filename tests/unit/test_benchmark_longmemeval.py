"""benchmarks/longmemeval.py's `--resume`: a two-hour hybrid run survives an interruption."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark_modules import load_benchmark

pytestmark = pytest.mark.unit

longmemeval = load_benchmark("longmemeval")

QUESTIONS = [{"question_id": "q1"}, {"question_id": "q2"}]
ROWS = [
    {"question_id": "q1", "retrieved": [{"session_id": "s1", "turn_index": 0}]},
    {"question_id": "q2", "retrieved": []},
]


def _args(tmp_path: Path, *more: str):
    return longmemeval.parse_args(["--out", str(tmp_path / "out.json"), *more])


def test_without_resume_nothing_is_taken(tmp_path):
    assert longmemeval.answered(_args(tmp_path)) == {}


def test_a_checkpoint_is_what_resume_reads_back(tmp_path):
    args = _args(tmp_path, "--mode", "hybrid")
    longmemeval.checkpoint(args, ROWS[:1])
    written = json.loads(args.out.read_text())
    assert written["meta"]["partial"] is True
    assert not args.out.with_name("out.json.tmp").exists()  # written whole, then renamed

    again = _args(tmp_path, "--mode", "hybrid", "--resume", str(args.out))
    assert longmemeval.answered(again) == {"q1": ROWS[0]}


def test_a_run_whose_questions_are_all_answered_asks_nothing(tmp_path):
    args = _args(tmp_path, "--mode", "lexical")
    args.database = None
    earlier = {row["question_id"]: row for row in ROWS}
    # No client: a question not taken from `earlier` would fail on it.
    result = longmemeval.run(args, None, QUESTIONS, earlier)  # type: ignore[arg-type]
    assert result["results"] == ROWS
    assert result["meta"]["resumed_questions"] == 2
    assert result["meta"]["asked_questions"] == 0
    assert result["meta"]["search_latency"] == {"n": 0}


@pytest.mark.parametrize(
    ("meta", "says"),
    [
        ({"mode": "lexical", "layout": "sessions", "fact_keys": "none"}, "its mode is 'lexical'"),
        ({"mode": "hybrid", "layout": "one-session", "fact_keys": "none"}, "its layout"),
        ({"mode": "hybrid", "layout": "sessions", "fact_keys": "rule"}, "its fact_keys"),
    ],
)
def test_resume_refuses_another_systems_results(tmp_path, meta, says):
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({"results": ROWS, "meta": meta}))
    with pytest.raises(SystemExit, match=says):
        longmemeval.answered(_args(tmp_path, "--mode", "hybrid", "--resume", str(earlier)))


def test_resume_refuses_a_file_that_is_not_there(tmp_path):
    missing = tmp_path / "never-written.json"
    with pytest.raises(SystemExit, match="no such results file"):
        longmemeval.answered(_args(tmp_path, "--resume", str(missing)))
