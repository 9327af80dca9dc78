"""Cold start of the API function: import functions/api/app.py in fresh interpreters.

    .venv/bin/python benchmarks/cold_start.py [--runs 15]

Each run is a new Python process configured as the Lambda function is (DynamoDB store), timing
`import app` — settings parsed, adapters and resolver built — with time.perf_counter inside the
process, so interpreter start-up itself is reported apart. No network is touched: building the
store makes no AWS call.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import sys, time
t0 = time.perf_counter()
import app
t1 = time.perf_counter()
print((t1 - t0) * 1000)
"""


def run_once() -> tuple[float, float]:
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'functions/api'}{os.pathsep}{ROOT / 'layers/core'}",
        "AGENT_MEMORY_STORE": "dynamodb",
        "AGENT_MEMORY_TABLE_NAME": "agent-memory-bench",
        "AWS_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "POWERTOOLS_SERVICE_NAME": "agent-memory",
        "PYTHONDONTWRITEBYTECODE": "0",
    }
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    wall = (time.perf_counter() - started) * 1000
    return float(out.stdout.strip().splitlines()[-1]), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    run_once()  # warm the bytecode cache, as a deployed layer ships .pyc-compiled code
    imports, walls = zip(*(run_once() for _ in range(args.runs)), strict=True)
    result = {
        "runs": args.runs,
        "import_ms_median": round(statistics.median(imports), 1),
        "import_ms_max": round(max(imports), 1),
        "process_ms_median": round(statistics.median(walls), 1),
        "python": sys.version.split()[0],
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
