"""benchmarks/as_of.py in its smoke mode: plain and as-of listings of a small agent timed side by
side, the as-of page holding the same records at their versions then."""

from __future__ import annotations

import json

import pytest

from benchmark_modules import run_benchmark

pytestmark = pytest.mark.e2e

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
    done = run_benchmark("as_of.py", "--smoke", "--out", str(out))
    # Then every series was timed, and the page read as of the middle of the history holds
    # the records of today's page at the version they had then
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
