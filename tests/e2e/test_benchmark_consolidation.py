"""benchmarks/consolidation.py in its smoke mode: an agent with planted twins and contradictions
consolidated once, leaving exactly the records that say something of their own."""

from __future__ import annotations

import json

import pytest

from benchmark_modules import run_benchmark

pytestmark = pytest.mark.e2e


def test_the_smoke_run_merges_the_planted_twins_and_keeps_the_newer_facts(tmp_path):
    out = tmp_path / "consolidation.json"
    done = run_benchmark("consolidation.py", "--smoke", "--out", str(out))
    result = json.loads(out.read_text())
    assert json.loads(done.stdout) == result
    assert (result["records"], result["planted_twins"], result["planted_contradictions"]) == (
        50,
        10,
        5,
    )
    assert result["counts"]["merged"] == 10 and result["counts"]["superseded"] == 5
    assert result["active_after"] == result["expected_active"] == 35
    assert result["newer_homes_kept"] is True
    assert result["model_calls"] == 0 and result["wall_s"] > 0
