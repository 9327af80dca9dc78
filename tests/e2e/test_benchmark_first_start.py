"""benchmarks/first_start.py runs: one fresh server, timed until it answers and over its first
two ranked searches."""

from __future__ import annotations

import sys

import pytest

from benchmark_modules import load_benchmark

pytestmark = pytest.mark.e2e


def test_one_run_times_the_start_and_the_first_searches() -> None:
    # Given the benchmark, when it runs once with this interpreter
    run = load_benchmark("first_start").one_run(sys.executable)
    # Then it timed a server that answered and two searches that found their way back
    assert set(run) == {"ready_s", "first_search_ms", "second_ms"}
    assert 0 < run["ready_s"] < 120
    assert run["first_search_ms"] > 0 and run["second_ms"] > 0
