"""A module of benchmarks/, imported for a test, or run as a script in its smoke mode.

benchmarks/ is on sys.path only while importing: left first on it for good, its
extraction_corpus.py would shadow the tests' own for every test collected after."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    saved = list(sys.path)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path[:] = saved


def run_benchmark(
    script: str, *args: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """benchmarks/`script` run with `args` in a fresh interpreter; the test fails with the end
    of its stderr unless it exits 0."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done
