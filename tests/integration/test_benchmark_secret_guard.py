"""benchmarks/secret_guard.py in a smoke run: the detector's accuracy on the corpus and what a
scan adds to a few 4 KB writes; detect-secrets (the bench extra) compared only when installed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "secret_guard.py"


def test_a_few_writes_measure_the_guard_and_its_accuracy():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--writes", "4"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    # Our detector finds every fake of the corpus, names its kind, and flags no look-alike
    ours = report["ours"]
    assert ours["found"] == ours["secrets"] == ours["kind_named"]
    assert ours["false_positives"] == 0 and ours["us_per_text"] > 0
    assert report["write_4kb"]["writes_each"] == 4
    assert report["write_4kb"]["p50_ms_block"] > 0
    if importlib.util.find_spec("detect_secrets") is None:
        assert report["detect-secrets"].startswith("not installed")
