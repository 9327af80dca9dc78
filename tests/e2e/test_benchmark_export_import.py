"""benchmarks/export_import.py in a smoke run on a tiny LongMemEval-shaped haystack: loaded into
one embedded server, exported, imported into another and into the cloud shape under moto, with
every read the same after."""

from __future__ import annotations

import json

import pytest

from benchmark_data import tiny_longmemeval
from benchmark_modules import run_benchmark

pytestmark = pytest.mark.e2e


def test_a_tiny_haystack_is_exported_and_imported_with_every_read_the_same(tmp_path):
    # Given a question whose haystack is three short sessions (six events)
    data = tiny_longmemeval(tmp_path / "lme.json", questions=1)
    out = tmp_path / "result.json"
    # When the benchmark moves its agent, words only, to another server and to the cloud shape
    run_benchmark("export_import.py", "--data", str(data), "--mode", "lexical", "--cloud",
                  "--out", str(out))  # fmt: skip
    # Then every event went each way, at a rate, and every read answered the same after
    result = json.loads(out.read_text())
    assert result["events"] == result["exported_events"] == 6
    assert result["export_events_per_s"] > 0 and result["import_events_per_s"] > 0
    assert result["reads_equal"] is True
    assert result["cloud"]["stored_reads_equal"] is True
    assert result["cloud"]["written"] == result["items"]
