"""benchmarks/ingest_profile.py: the in-process ingest benchmark RESULTS.md counts instructions
of runs the whole path (gateway, resolver, ingest, SQLite) and refuses a run it cannot time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "ingest_profile.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300
    )


def test_nine_sessions_are_two_batches_and_the_second_is_timed():
    done = run("--sessions", "9")

    assert done.returncode == 0, done.stderr
    # 9 sessions of 20 turns are 540 messages: the first 480 warm, the last 60 (20 turns of 2
    # events) are timed.
    assert done.stdout.startswith("40 events after the first batch in ")
    assert done.stdout.rstrip().endswith("events/s")


def test_a_run_of_one_batch_is_refused_as_it_would_time_nothing():
    done = run("--sessions", "8")

    assert done.returncode == 1
    assert "is one batch, all of it warming" in done.stderr
