"""benchmarks/synchronous.py in a smoke run: both SQLite modes time both kinds of write."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "synchronous.py"


def test_a_round_of_a_few_writes_times_full_against_normal(tmp_path):
    # Given a round of five writes of each kind in each mode
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--writes", "5", "--rounds", "1", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    # Then each mode reports a p50 and p99 of each write
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert set(report) == {"FULL", "NORMAL"}
    for mode in report.values():
        assert set(mode) == {"memory_put", "turn"}
        for kind in mode.values():
            assert kind["n"] == 5 and 0 < kind["p50_ms"] <= kind["p99_ms"]
