"""Cold start of the API function: import functions/api/app.py in fresh interpreters.

    .venv/bin/python benchmarks/cold_start.py [--runs 15] [--instructions]

Each run is a new Python process given the environment template.yaml gives ApiFunction (the
Globals' variables and the function's own, each CloudFormation reference replaced by a stand-in
value of the same shape) plus what the Lambda runtime sets, and nothing of the caller's
environment. It times `import app` inside the process with time.perf_counter (and the CPU it
used, with time.process_time, which another process on the machine inflates less): settings
parsed, adapters and resolver built, as the handler does at module level. Interpreter start-up
is reported apart. No network is touched: building the services makes no AWS call.

Bytecode is warm by default (a first, untimed run writes it). `--no-bytecode` measures what a
function deployed from `sam build` runs: its output holds no .pyc, and /opt and /var/task are
read-only, so each cold start compiles every module it imports (PYTHONPYCACHEPREFIX points at an
empty folder and PYTHONDONTWRITEBYTECODE keeps it empty).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import time
t0, c0 = time.perf_counter(), time.process_time()
import app
print((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000)
"""
# The libraries every route of the function needs, imported alone: the store's (pynamodb, and
# botocore through it), the resolver's and logger's (Powertools), the bodies' (pydantic). What
# `import app` takes beyond this is the project's own code and the rest of its dependencies.
FLOOR = """
import time
t0, c0 = time.perf_counter(), time.process_time()
import pynamodb.models, aws_lambda_powertools.logging, aws_lambda_powertools.event_handler.api_gateway
import pydantic.main, pydantic.fields, pydantic.types
print((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000)
"""
REGION = "us-east-1"
# Values for the variables template.yaml sets from a reference (!Ref, !GetAtt): what the stack
# would resolve them to, in shape. A variable missing here fails the benchmark, so a variable
# added to the template cannot go unmeasured.
# None: unset, as the stack leaves it with its parameters' defaults (`!If [..., !Ref AWS::NoValue]`).
STAND_INS: dict[str, str | None] = {
    "AGENT_MEMORY_TABLE_NAME": "agent-memory-Table-BENCH",
    "AGENT_MEMORY_TENANT_CLAIM": "tenant",
    "AGENT_MEMORY_ROLES_CLAIM": "roles",
    "AGENT_MEMORY_AUDIT_RETENTION_DAYS": "365",
    "AGENT_MEMORY_EVENT_BUS_NAME": "agent-memory-MemoryEventBus-BENCH",
    "AGENT_MEMORY_OPENSEARCH_ENDPOINT": "https://bench0123456789.us-east-1.aoss.amazonaws.com",
    "AGENT_MEMORY_OPENSEARCH_INDEX": "agent-memory",
    # The SearchBackend parameter's default, opensearch-serverless: no vector bucket.
    "AGENT_MEMORY_SEARCH_BACKEND": "opensearch-serverless",
    "AGENT_MEMORY_S3VECTORS_BUCKET": None,
    "AGENT_MEMORY_HISTORY_BUCKET": "agent-memory-historybucket-bench",
    "AGENT_MEMORY_BEDROCK_EMBEDDING_MODEL": "amazon.titan-embed-text-v2:0",
    "AGENT_MEMORY_BEDROCK_EMBEDDING_DIMENSIONS": "1024",
    "AGENT_MEMORY_EXTRACTION_STATE_MACHINE_ARN": (
        "arn:aws:states:us-east-1:123456789012:stateMachine:ExtractionStateMachine-BENCH"
    ),
    # The Console parameter's default, Enabled.
    "AGENT_MEMORY_CONSOLE": "true",
    # The Tracing parameter's default, Disabled: no tracer is imported.
    "AGENT_MEMORY_TRACING": "false",
}
# What the Lambda runtime adds (credentials are the role's, from the environment).
RUNTIME = {
    "AWS_REGION": REGION,
    "AWS_DEFAULT_REGION": REGION,
    "AWS_ACCESS_KEY_ID": "ASIABENCH",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_SESSION_TOKEN": "bench",
    "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
    "AWS_LAMBDA_FUNCTION_NAME": "agent-memory-ApiFunction-BENCH",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024",
}


class _Intrinsic:
    """A CloudFormation reference (`!Ref Table`): resolved only when the stack is deployed."""


def _template_loader() -> type[yaml.SafeLoader]:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: _Intrinsic())
    return Loader


def function_environment(function: str = "ApiFunction") -> dict[str, str]:
    """The variables template.yaml gives `function` (Globals first, its own over them), with
    stand-ins for references, plus the runtime's: the environment the handler is imported in."""
    template: dict[str, Any] = yaml.load(  # noqa: S506 - SafeLoader with one constructor added
        (ROOT / "template.yaml").read_text(), Loader=_template_loader()
    )
    variables = {
        **template["Globals"]["Function"]["Environment"]["Variables"],
        **template["Resources"][function]["Properties"].get("Environment", {}).get("Variables", {}),
    }
    env = dict(RUNTIME)
    for name, value in variables.items():
        if isinstance(value, _Intrinsic):
            if name not in STAND_INS:
                raise SystemExit(f"template.yaml sets {name} from a reference: add a stand-in")
            stand_in = STAND_INS[name]
            if stand_in is not None:
                env[name] = stand_in
        else:
            env[name] = str(value)
    return env


def probe_environment() -> dict[str, str]:
    """The function's environment, with the code where Lambda puts it: the handler's folder
    (/var/task) and the layer (/opt/python) on the path."""
    return {
        **function_environment(),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "functions/api"), str(ROOT / "layers/core")]),
    }


def run_once(env: dict[str, str], probe: str = PROBE) -> tuple[float, float, float]:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    wall = (time.perf_counter() - started) * 1000
    imported, cpu = (float(v) for v in out.stdout.strip().splitlines()[-1].split())
    return imported, cpu, wall


def count_instructions(env: dict[str, str]) -> dict[str, Any]:
    """Instructions one `import app` executes, interpreter start-up included, counted by
    valgrind's cachegrind (bytecode warm: a first run writes it). The same code counts the same
    to a few parts in ten thousand whatever else the machine runs."""
    run_once(env)
    env = {**env, "OPENBLAS_NUM_THREADS": "1"}
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    out = subprocess.run(
        [*command, sys.executable, "-c", "import app"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT / "functions/api",
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{out.stderr[-2000:]}")
    return {
        "import_app_instructions": int(found.group(1).replace(",", "")),
        "python": sys.version.split()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-bytecode", action="store_true", help="compile every module each run")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also time, interleaved, importing only the libraries every route needs",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count the instructions of one `import app` under valgrind (cachegrind) instead: "
        "a figure the machine's load does not move, to compare two checkouts",
    )
    args = parser.parse_args()
    env = probe_environment()
    if args.instructions:
        print(json.dumps(count_instructions(env), indent=2))
        return
    with tempfile.TemporaryDirectory() as empty:
        if args.no_bytecode:
            env = {**env, "PYTHONPYCACHEPREFIX": empty, "PYTHONDONTWRITEBYTECODE": "1"}
        else:
            run_once(env)  # writes the bytecode cache
            if args.floor:
                run_once(env, FLOOR)
        load_before = os.getloadavg()
        runs, floors = [], []
        for _ in range(args.runs):
            runs.append(run_once(env))
            if args.floor:
                floors.append(run_once(env, FLOOR))
        load_after = os.getloadavg()
    imports, cpus, walls = zip(*runs, strict=True)
    result = {
        "runs": args.runs,
        "bytecode": "none" if args.no_bytecode else "cached",
        "import_ms_median": round(statistics.median(imports), 1),
        "import_ms_max": round(max(imports), 1),
        "import_cpu_ms_median": round(statistics.median(cpus), 1),
        "process_ms_median": round(statistics.median(walls), 1),
        "load_average_1_5_15_before": [round(v, 2) for v in load_before],
        "load_average_1_5_15_after": [round(v, 2) for v in load_after],
        "python": sys.version.split()[0],
    }
    if floors:
        result["floor_import_ms_median"] = round(statistics.median(f[0] for f in floors), 1)
        result["floor_import_cpu_ms_median"] = round(statistics.median(f[1] for f in floors), 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
