"""benchmarks/cost_model.py run as a reader runs it: the bill at the three sizes for every
search backend, from the measured aws_calls.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "cost_model.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120
    )


def test_the_bill_of_every_backend_is_printed_from_the_measured_calls():
    # When the model runs on the committed aws_calls.json
    done = run()
    # Then each size has a total and the price of a thousand turns
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("**total a month**") >= 3
    assert "per 1,000 turns" in done.stdout


def test_memory_only_costs_less_than_with_history_for_every_backend_and_size():
    # When the bill is priced as JSON with history and without it
    bills = [run("--json", *more) for more in ((), ("--history-days", "0"))]
    assert all(done.returncode == 0 for done in bills), bills[0].stderr[-3000:]
    with_history, memory_only = (json.loads(done.stdout) for done in bills)
    # Then each backend at each size has a bill, and keeping no history costs less
    assert len(with_history) == len(memory_only) >= 3
    for full, lean in zip(with_history, memory_only, strict=True):
        assert (full["backend"], full["agents"]) == (lean["backend"], lean["agents"])
        assert 0 < lean["total_usd"] < full["total_usd"]
