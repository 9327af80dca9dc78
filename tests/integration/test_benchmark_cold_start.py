"""benchmarks/cold_start.py and first_request.py in smoke runs: the API function imports in a
fresh interpreter with template.yaml's environment (and the libraries alone with --floor), then
answers its first read and write under moto."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def run(script: str, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_one_cold_start_and_one_floor_are_timed():
    # When the import is timed once, with the libraries alone beside it
    result = run("cold_start.py", "--runs", "1", "--floor")
    # Then both medians are there, and the libraries alone import in less than the function
    assert result["runs"] == 1 and result["bytecode"] == "cached"
    assert 0 < result["floor_import_cpu_ms_median"] < result["import_cpu_ms_median"]


def test_the_first_read_and_write_after_one_cold_start_are_timed():
    # When one fresh process imports the function and serves its first two requests
    result = run("first_request.py", "--runs", "1")
    # Then the import and each first request have a time of their own
    steps = [k for k in result if k == "import app" or k.startswith("first ")]
    assert steps[0] == "import app" and len(steps) == 3
    for step in steps:
        assert result[step]["cpu_ms_median"] > 0, step
