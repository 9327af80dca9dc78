"""benchmarks/open_loop.py in its smoke run: an embedded server seeded, each read timed alone,
the capacity measured, and Poisson arrivals at each level answered."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from benchmark_modules import BENCHMARKS, run_benchmark

pytestmark = pytest.mark.e2e


def test_the_smoke_run_sends_poisson_arrivals_at_each_level(tmp_path):
    out = tmp_path / "open.json"
    run_benchmark("open_loop.py", "--smoke", "--levels", "0.25,0.5", "--out", str(out))
    report = json.loads(out.read_text())
    # Then the reads were timed alone, the capacity measured, and each level's arrivals answered
    assert set(report["idle"]) == {"search_memory", "search_history", "get_record"}
    assert report["capacity_ops_per_s"] > 0 and report["capacity"] == "sustained"
    # The levels are shares of the rate two cores keep up with: the closed loop's operations
    # over its time and the embedder's catching up after it
    assert report["capacity_ops_per_s"] == report["sustained_ops_per_s"]
    assert report["sustained_ops_per_s"] <= report["burst_ops_per_s"]
    assert report["embedder_caught_up_after_burst_s"] >= 0
    for level in ("25%", "50%"):
        sent = report["levels"][level]
        assert sent["sent"] > 0 and sent["answered"] + sent["error_count"] == sent["sent"]
        assert sent["error_count"] == 0, sent["errors"]
    assert set(report["read_p99_at_50pct_over_idle_p50"]) <= set(report["idle"])


def test_levels_are_shares_of_the_capacity():
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "open_loop.py"), "--levels", "1.5"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "between 0 and 1" in done.stderr
