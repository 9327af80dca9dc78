"""Per reviewed turn in the cloud shape: model calls, tokens, DynamoDB write units and Step
Functions state transitions, measured under moto (no AWS account).

    .venv/bin/python benchmarks/extraction_cloud.py [--turns 120] [--data FILE] [--out FILE]

Each of the first `--turns` LoCoMo turns of the first conversation is committed through the API
on DynamoDB (moto) with its review started as an execution of the real state machine
(functions/extraction/statemachine.asl.json, run by moto's ASL interpreter, its Lambda tasks
calling functions/extraction/app.py in this process: tests/moto_sfn.py). The benchmark waits
for each execution before the next commit, so every figure belongs to one review:

- state transitions: the execution's `...StateEntered` events (what Standard workflows bill);
- DynamoDB write units: every write request the review's tasks send, priced by DynamoDB's
  rules from the items' sizes (1 WRU per KB written, rounded up; transactional: 2 per KB; an
  update is priced at the item's size after it; a transaction's ConditionCheck is counted as a
  transactional write of its item, an upper bound). moto does not report consumed capacity, so
  the sizes are computed here from what was written (`item_bytes`);
- model calls and tokens: the review's own record on the turn (RuleBasedModel here).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # moto_sfn: the in-process Lambda hook
sys.path.insert(0, str(ROOT / "benchmarks"))

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo_dev.json"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:ExtractionFunction"
AGENT = "locomo/cloud"
WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}


# DynamoDB item sizes and units: tests/aws_meter.py (DynamoDB's rules, shared with aws_calls.py).
from aws_meter import item_bytes, units  # noqa: E402 - after the path above


@dataclass
class Meter:
    """Write units of every DynamoDB write request sent while `on`."""

    table: str
    on: bool = False
    write_units: int = 0
    requests: Counter[str] | None = None

    def __post_init__(self) -> None:
        self.requests = Counter()
        self._local = threading.local()
        self._lock = threading.Lock()

    def install(self) -> None:
        import botocore.client

        original = botocore.client.BaseClient._make_api_call
        meter = self

        def metered(client: Any, operation: str, params: dict[str, Any]) -> Any:
            result = original(client, operation, params)
            if (
                meter.on
                and operation in WRITES
                and client.meta.service_model.service_name == "dynamodb"
                and not getattr(meter._local, "inside", False)
            ):
                meter._local.inside = True
                try:
                    meter.count(client, operation, params)
                finally:
                    meter._local.inside = False
            return result

        botocore.client.BaseClient._make_api_call = metered  # type: ignore[method-assign]

    def _size_now(self, client: Any, key: dict[str, Any]) -> int:
        found = client.get_item(TableName=self.table, Key=key, ConsistentRead=True)
        return item_bytes(found.get("Item") or key)

    def count(self, client: Any, operation: str, params: dict[str, Any]) -> None:
        spent = 0
        if operation == "PutItem":
            spent = units(item_bytes(params["Item"]))
        elif operation in ("UpdateItem", "DeleteItem"):
            spent = units(self._size_now(client, params["Key"]))
        elif operation == "BatchWriteItem":
            for requests in params["RequestItems"].values():
                for request in requests:
                    put = request.get("PutRequest")
                    spent += units(item_bytes(put["Item"])) if put else 1
        else:
            for action in params["TransactItems"]:
                ((kind, body),) = action.items()
                if kind == "Put":
                    size = item_bytes(body["Item"])
                else:
                    size = self._size_now(client, body["Key"])
                spent += 2 * units(size)
        with self._lock:
            self.write_units += spent
            assert self.requests is not None
            self.requests[operation] += 1

    def take(self) -> tuple[int, dict[str, int]]:
        with self._lock:
            assert self.requests is not None
            taken = (self.write_units, dict(self.requests))
            self.write_units = 0
            self.requests = Counter()
        return taken


def spread(values: list[float]) -> dict[str, float]:
    return {
        "mean": round(statistics.fmean(values), 2),
        "p50": round(statistics.median(values), 2),
        "max": round(max(values), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=120)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
    }.items():
        os.environ[name] = value

    import boto3
    from locomo import load_conversations, review_event
    from moto import mock_aws

    import moto_sfn
    from agent_memory.adapters.dynamodb import DynamoStore

    conv = load_conversations(args.data)[0]
    turns = conv["turns"][: args.turns]
    table = "agent-memory-bench"
    meter = Meter(table)
    meter.install()
    data_dir = tempfile.mkdtemp(prefix="agent-memory-cloud-")
    with mock_aws(config=moto_sfn.CONFIG):
        DynamoStore(table, "us-east-1").create_table()
        sqs = boto3.client("sqs", region_name="us-east-1")
        dlq = sqs.create_queue(QueueName="extraction-dlq")["QueueUrl"]
        sfn = boto3.client("stepfunctions", region_name="us-east-1")
        machine = moto_sfn.create_extraction_machine(sfn, FUNCTION, dlq)
        os.environ.update(
            {
                "AGENT_MEMORY_STORE": "dynamodb",
                "AGENT_MEMORY_TABLE_NAME": table,
                "AGENT_MEMORY_EXTRACTION_STATE_MACHINE_ARN": machine,
                "AGENT_MEMORY_EXTRACTION_MODEL": "rule_based",
                "AGENT_MEMORY_EMBEDDINGS": "none",
                "AGENT_MEMORY_DATA_DIR": data_dir,
                "POWERTOOLS_SERVICE_NAME": "agent-memory",
                "POWERTOOLS_LOG_LEVEL": "WARNING",
            }
        )
        spec = importlib.util.spec_from_file_location(
            "extraction_app", ROOT / "functions" / "extraction" / "app.py"
        )
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)

        class Context:
            function_name = "ExtractionFunction"
            memory_limit_in_mb = 1024
            invoked_function_arn = FUNCTION
            aws_request_id = "bench"

        handlers = {FUNCTION: lambda payload: module.lambda_handler(payload, Context())}
        from agent_memory.api.app import Api
        from apiclient import ApiClient

        api = ApiClient(Api(module.services).handle)
        manifest = {
            "harness": {
                "memory": {"enabled": True, "scope": {"read": ["agent"], "write": ["agent"]}}
            }
        }
        api.ok("PUT", f"/v1/agents/{AGENT}", manifest, expect=201)
        base = f"/v1/agents/{AGENT}/-/sessions"
        rows: list[dict[str, Any]] = []
        sessions: dict[int, str] = {}
        started = time.perf_counter()
        with moto_sfn.lambda_in_process(handlers):
            for turn in turns:
                if turn["session"] not in sessions:
                    sessions[turn["session"]] = api.ok("POST", base, expect=201)["id"]
                s = sessions[turn["session"]]
                t = api.ok("POST", f"{base}/{s}/turns", expect=201)["id"]
                path = f"{base}/{s}/turns/{t}"
                api.ok("POST", f"{path}/events", {"events": [review_event(turn, False)]})
                meter.take()
                meter.on = True
                committed = api.ok("POST", f"{path}/commit")
                if committed.get("extraction") is None:
                    meter.on = False
                    continue
                meter.take()  # the commit's own writes are the turn's, not the review's
                executions = sfn.list_executions(stateMachineArn=machine)["executions"]
                arn = next(e["executionArn"] for e in executions if e["name"].startswith(t))
                while sfn.describe_execution(executionArn=arn)["status"] == "RUNNING":
                    time.sleep(0.01)
                meter.on = False
                write_units, requests = meter.take()
                history = sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]
                transitions = sum(e["type"].endswith("StateEntered") for e in history)
                review = api.ok("GET", path)["extraction"]
                rows.append(
                    {
                        "dia_id": turn["dia_id"],
                        "status": review["status"],
                        "model_calls": review["modelCalls"],
                        "input_tokens": review["inputTokens"],
                        "output_tokens": review["outputTokens"],
                        "added": review["added"],
                        "write_units": write_units,
                        "write_requests": requests,
                        "state_transitions": transitions,
                    }
                )
        elapsed = time.perf_counter() - started
    done = [r for r in rows if r["status"] == "done"]
    summary = {
        "turns": len(turns),
        "reviews": len(rows),
        "done": len(done),
        "model_calls": spread([r["model_calls"] for r in done]),
        "input_tokens": spread([r["input_tokens"] for r in done]),
        "output_tokens": spread([r["output_tokens"] for r in done]),
        "write_units": spread([r["write_units"] for r in done]),
        "write_units_with_records": spread([r["write_units"] for r in done if r["added"]] or [0]),
        "write_units_without_records": spread(
            [r["write_units"] for r in done if not r["added"]] or [0]
        ),
        "state_transitions": spread([r["state_transitions"] for r in done]),
        "records_added": sum(r["added"] for r in done),
        "wall_s": round(elapsed, 1),
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "reviews": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
