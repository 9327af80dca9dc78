"""benchmarks/tenant_isolation.py in its smoke mode: tenant B's search timed alone and while
tenant A works at its limit on the same embedded server."""

from __future__ import annotations

import json

import pytest

from benchmark_modules import run_benchmark

pytestmark = pytest.mark.e2e


def test_the_smoke_run_times_b_alone_and_beside_a_busy_a(tmp_path):
    # Given the benchmark in its smoke mode
    out = tmp_path / "isolation.json"
    # When it runs
    run_benchmark("tenant_isolation.py", "--smoke", "--out", str(out))
    # Then both series were timed, A was served meanwhile, and the ratio is theirs
    report = json.loads(out.read_text())
    assert report["alone"]["n"] == 20 and report["beside_a"]["n"] >= 20
    assert report["alone"]["p50_ms"] > 0 and report["beside_a"]["p50_ms"] > 0
    assert report["a_statuses"].get("200", 0) > 0
    assert set(report["a_statuses"]) <= {"200", "429"}
    ratio = report["beside_a"]["p50_ms"] / report["alone"]["p50_ms"]
    assert report["p50_ratio"] == pytest.approx(ratio, abs=0.01)
