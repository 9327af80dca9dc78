"""benchmarks/backup.py in its smoke mode: a backup taken under load over HTTP, timed, with
the requests before and during it measured, and the backup restored whole."""

from __future__ import annotations

import json

import pytest

from benchmark_modules import run_benchmark

pytestmark = pytest.mark.integration


def test_the_smoke_run_times_a_backup_under_load_and_restores_it(tmp_path):
    # Given the benchmark in its smoke mode (a few MB)
    out = tmp_path / "backup.json"
    # When it runs
    run_benchmark("backup.py", "--smoke", "--dir", str(tmp_path), "--out", str(out))
    # Then the backup is timed, the requests around it measured without errors, and the
    # restored database holds every padded event
    report = json.loads(out.read_text())
    assert report["database_mb"] >= 5
    assert report["backup"]["seconds"] > 0
    assert set(report["backup"]["files"]) == {"agent-memory.sqlite3", "tokens.json", "token"}
    assert report["errors"] == 0, report["error_examples"]
    for window in ("requests_before", "requests_during"):
        for kind in ("read", "write"):
            series = report[window][kind]
            assert series["n"] > 0 and 0 < series["p50_ms"] <= series["p99_ms"], (window, kind)
    assert report["restore"]["files"] == report["backup"]["files"]
    assert report["restore"]["history_events"] > 1000
