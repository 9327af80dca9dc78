"""Cold start and the first requests after it: `import app`, then the first call of a read and
of a write route, each in a fresh interpreter.

    .venv/bin/python benchmarks/first_request.py [--runs 15]

`cold_start.py` times `import app` alone; work moved out of it into the first request would
make it look better and the function no faster. This times, in the same process after the
import, the first GET of an agent (a read: the store, the manifest model) and then the first
POST of a session (a write: the store, the audit trail, the EventBridge event). The function's
environment is cold_start.py's (template.yaml's variables, the runtime's); AWS is moto, started
in the probe after `import app` is timed and loaded with a table saved once beforehand (one agent,
put through the API), so no request leaves the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from cold_start import probe_environment, run_once  # noqa: E402 - the script's own folder

EVENTS = Path(__file__).resolve().parents[1] / "events"
# The routes: a read every agent's harness makes, and a write that publishes and is audited.
ROUTES = ("get_agent", "create_session")

# Run once, under moto: the table made as DynamoStore makes it and one agent saved through the
# API; prints the table's schema and its items, raw, for each probe to load without our code.
SETUP = """
import json, sys
from types import SimpleNamespace
import boto3
from moto import mock_aws

with mock_aws():
    import app
    from agent_memory.adapters.dynamodb import DynamoStore

    settings = app.settings
    DynamoStore(settings.table_name, settings.region).create_table()
    context = SimpleNamespace(function_name="ApiFunction", memory_limit_in_mb=1024,
                              invoked_function_arn="arn", aws_request_id="setup")
    status = app.lambda_handler(json.loads(sys.argv[1]), context)["statusCode"]
    assert status == 201, status
    client = boto3.client("dynamodb", region_name=settings.region)
    table = client.describe_table(TableName=settings.table_name)["Table"]
    schema = {
        "TableName": table["TableName"],
        "KeySchema": table["KeySchema"],
        "AttributeDefinitions": table["AttributeDefinitions"],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [
            {k: index[k] for k in ("IndexName", "KeySchema", "Projection")}
            for index in table.get("GlobalSecondaryIndexes", [])
        ],
    }
    if not schema["GlobalSecondaryIndexes"]:
        del schema["GlobalSecondaryIndexes"]
    items = client.scan(TableName=settings.table_name)["Items"]
    print(json.dumps({"schema": schema, "items": items}))
"""

# `import app` is timed first, as the function's init; then moto is started and the table
# loaded with boto3 alone (untimed, touching none of our modules), then the first requests.
# moto imports boto3, so the first write does not pay for importing it here (~100 ms of CPU
# in the function, measured apart in RESULTS.md); both sides of an A/B share that.
PROBE = """
import json, sys, time
from types import SimpleNamespace
t0, c0 = time.perf_counter(), time.process_time()
import app
times = [((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000)]

import boto3
from moto import mock_aws
given = json.loads(sys.stdin.read())
mock = mock_aws()
mock.start()
region = app.settings.region
client = boto3.client("dynamodb", region_name=region)
client.create_table(**given["table"]["schema"])
for item in given["table"]["items"]:
    client.put_item(TableName=given["table"]["schema"]["TableName"], Item=item)
boto3.client("events", region_name=region).create_event_bus(Name=app.settings.event_bus_name)
context = SimpleNamespace(
    function_name="ApiFunction", memory_limit_in_mb=1024, aws_request_id="bench",
    invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:ApiFunction",
)
for event in given["events"]:
    t0, c0 = time.perf_counter(), time.process_time()
    status = app.lambda_handler(event, context)["statusCode"]
    times.append(((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000))
    assert 200 <= status < 300, status
print(json.dumps(times))
"""


def event(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text())
    return loaded


def run_probe(env: dict[str, str], table: dict[str, Any]) -> list[tuple[float, float]]:
    given = json.dumps({"table": table, "events": [event(name) for name in ROUTES]})
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=given,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [(wall, cpu) for wall, cpu in json.loads(out.stdout.strip().splitlines()[-1])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    env = probe_environment()
    done = subprocess.run(
        [sys.executable, "-c", SETUP, json.dumps(event("put_agent"))],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    table = json.loads(done.stdout.strip().splitlines()[-1])
    run_once(env)  # writes the bytecode cache (cold_start.py --no-bytecode: without it)
    load_before = os.getloadavg()
    runs = [run_probe(env, table) for _ in range(args.runs)]
    load_after = os.getloadavg()
    steps = ("import app", *(f"first {name}" for name in ROUTES))
    result: dict[str, Any] = {"runs": args.runs}
    for i, step in enumerate(steps):
        result[step] = {
            "wall_ms_median": round(statistics.median(run[i][0] for run in runs), 1),
            "cpu_ms_median": round(statistics.median(run[i][1] for run in runs), 1),
        }
    result["total_cpu_ms_median"] = round(statistics.median(sum(c for _, c in r) for r in runs), 1)
    result["load_average_1_5_15_before"] = [round(v, 2) for v in load_before]
    result["load_average_1_5_15_after"] = [round(v, 2) for v in load_after]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
