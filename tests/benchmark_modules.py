"""A module of benchmarks/, imported for a test.

benchmarks/ is on sys.path only while importing: left first on it for good, its
extraction_corpus.py would shadow the tests' own for every test collected after."""

from __future__ import annotations

import importlib
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
