"""benchmarks/aws_calls.py in its smoke mode: one reviewed turn of the cloud shape under moto and
the S3 Vectors index's operations, counted and written where the run is told, never over the
committed aws_calls.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

pytest.importorskip("osmem_server", reason="osmem-server (dev extra) is not installed")

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / "aws_calls.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_smoke_run_counts_a_review_and_the_s3_vectors_operations(tmp_path):
    committed = (BENCHMARKS / "aws_calls.json").read_text()
    out = tmp_path / "calls.json"
    # When the smoke run counts its operations
    done = run("--smoke", "--out", str(out))
    # Then the review and each S3 Vectors operation have their calls, and the table says so
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(out.read_text())
    review = rows["extraction review 0"]
    assert review["calls"]["dynamodb.TransactWriteItems"] >= 1
    assert rows["s3-vectors: vector search"]["calls"] == {"s3vectors.QueryVectors": 1}
    assert "| extraction review 0 |" in done.stdout
    assert (BENCHMARKS / "aws_calls.json").read_text() == committed


def test_a_smoke_run_without_out_is_refused_and_writes_nothing():
    committed = (BENCHMARKS / "aws_calls.json").read_text()
    done = run("--smoke")
    assert done.returncode == 2
    assert "--smoke writes a partial table: give it --out FILE" in done.stderr
    assert (BENCHMARKS / "aws_calls.json").read_text() == committed
