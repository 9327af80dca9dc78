"""benchmarks/as_of.py in its smoke mode: plain and as-of listings of a small agent timed side by
side, the as-of page holding the same records at their versions then."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "as_of.py"
SERIES = {
    "plain",
    "as_of_now",
    "as_of_mid",
    "as_of_start",
    "plain_deep",
    "as_of_mid_deep",
    "plain_ranked",
    "as_of_mid_ranked",
}


def test_the_smoke_run_times_as_of_reads_beside_plain_ones(tmp_path):
    # Given the benchmark in its smoke mode (40 records of 3 versions)
    out = tmp_path / "as_of.json"
    # When it runs
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--smoke", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    # Then every series was timed, and the page read as of the middle of the history holds
    # the records of today's page at the version they had then
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert json.loads(done.stdout) == result
    assert set(result["series_ms"]) == SERIES
    assert all(s["n"] == 10 and s["p50"] > 0 for s in result["series_ms"].values())
    assert result["checks"] == {
        "same_records": True,
        "versions_then": [1],
        "versions_now": [3],
    }
    assert result["as_of_mid_over_plain"] > 0
