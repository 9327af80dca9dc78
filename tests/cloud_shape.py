"""The cloud shape under moto, wired as template.yaml wires it, for counting what each operation
sends to AWS (tests/aws_meter.py): the API on DynamoDB with EventBridge, Step Functions, Bedrock
embeddings (answered by the meter) and an OpenSearch index (osmem-server, a real HTTP engine);
the table's stream (made by the meter from each write: tests/aws_meter.py) fed to the real
indexer function (functions/indexer/app.py) in one batch, as Lambda would; and, with `execute=True`, the extraction state machine run by moto's ASL
interpreter with its tasks in this process (tests/moto_sfn.py).
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import moto_sfn
from apiclient import ApiClient
from aws_meter import AwsMeter

ROOT = Path(__file__).resolve().parents[1]
REGION = "us-east-1"
TABLE = "agent-memory-calls"
BUS = "agent-memory-bus"
BUCKET = "agent-memory-history"
INDEX = "agent-memory"
DIMENSIONS = 256  # Titan v2's smallest: the number of requests does not depend on it
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:ExtractionFunction"
ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_REGION": REGION,
    "AGENT_MEMORY_STORE": "dynamodb",
    "AGENT_MEMORY_TABLE_NAME": TABLE,
    "AGENT_MEMORY_EVENT_BUS_NAME": BUS,
    "AGENT_MEMORY_HISTORY_BUCKET": BUCKET,
    "AGENT_MEMORY_OPENSEARCH_ENDPOINT": "http://osmem.invalid",
    "AGENT_MEMORY_OPENSEARCH_INDEX": INDEX,
    "AGENT_MEMORY_EMBEDDINGS": "bedrock",
    "AGENT_MEMORY_BEDROCK_EMBEDDING_DIMENSIONS": str(DIMENSIONS),
    "AGENT_MEMORY_EXTRACTION_MODEL": "rule_based",
    "POWERTOOLS_SERVICE_NAME": "agent-memory",
    "POWERTOOLS_LOG_LEVEL": "WARNING",
}


class LambdaContext:
    function_name = "function"
    memory_limit_in_mb = 1024
    invoked_function_arn = FUNCTION
    aws_request_id = "calls"


@contextmanager
def osmem_engine() -> Iterator[Any]:
    """An opensearch-py client on a fresh osmem-server (exits with this process)."""
    import opensearchpy
    import osmem_server

    server = osmem_server.OsmemServer.start(addr="127.0.0.1:0", japanese=False)
    client = opensearchpy.OpenSearch(hosts=[server.url], timeout=10)
    try:
        deadline = time.monotonic() + 15
        while not client.ping():
            if time.monotonic() > deadline:
                raise RuntimeError(f"osmem-server at {server.url} did not answer within 15 s")
            time.sleep(0.05)
        yield client
    finally:
        client.close()
        server.close()


def load_function(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        f"{name}_app_{uuid.uuid4().hex[:6]}", ROOT / "functions" / name / "app.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class CloudShape:
    meter: AwsMeter
    api: ApiClient
    services: Any
    machine: str
    indexer: Any
    sfn: Any
    release: threading.Event = field(default_factory=threading.Event)

    def index_stream(self) -> int:
        """Feed the new stream records to the indexer function in one batch; how many."""
        records = self.meter.take_stream()
        if records:
            response = self.indexer.lambda_handler({"Records": records}, LambdaContext())
            assert not response.get("batchItemFailures"), response
        return len(records)

    def wait_for_executions(self) -> list[dict[str, Any]]:
        """Let held executions run, wait until none runs (not counted); their histories."""
        self.release.set()
        with self.meter.paused():
            while True:
                executions = self.sfn.list_executions(stateMachineArn=self.machine)["executions"]
                if all(e["status"] != "RUNNING" for e in executions):
                    break
                time.sleep(0.01)
            histories = [
                self.sfn.get_execution_history(executionArn=e["executionArn"], maxResults=1000)
                for e in executions
            ]
        self.release.clear()
        return histories


@contextmanager
def cloud_shape(data_dir: Path, *, execute: bool = False) -> Iterator[CloudShape]:
    """The cloud shape under moto with the meter installed. With `execute`, each committed
    turn's review runs as an execution of the real state machine, held at its first task until
    `wait_for_executions` (so a commit's own calls are counted apart from its review's)."""
    import boto3
    from moto import mock_aws

    from agent_memory.adapters import opensearch
    from agent_memory.adapters.dynamodb import DynamoStore

    moto_sfn.check_pinned()
    saved = {name: os.environ.get(name) for name in ENV}
    os.environ.update(ENV)
    os.environ["AGENT_MEMORY_DATA_DIR"] = str(data_dir)
    with ExitStack() as stack:
        engine = stack.enter_context(osmem_engine())
        stack.enter_context(mock_aws(config=moto_sfn.CONFIG if execute else None))
        meter = AwsMeter(TABLE)
        meter.count_opensearch(engine)
        original_connect = opensearch.connect

        def connect(endpoint: str, region: str, index_name: str, dimensions: int, **kw: Any):
            # The engine at hand instead of an AOSS endpoint signed with SigV4; refresh so a
            # write is searchable at once (one request either way).
            return opensearch.OpenSearchIndex(
                engine, index_name, dimensions, model_id=kw.get("model_id"), refresh=True
            )

        opensearch.connect = connect  # type: ignore[assignment]
        stack.callback(setattr, opensearch, "connect", original_connect)
        DynamoStore(TABLE, REGION).create_table()
        boto3.client("events", region_name=REGION).create_event_bus(Name=BUS)
        boto3.client("s3", region_name=REGION).create_bucket(Bucket=BUCKET)
        dlq = boto3.client("sqs", region_name=REGION).create_queue(QueueName="dlq")["QueueUrl"]
        sfn = boto3.client("stepfunctions", region_name=REGION)
        machine = moto_sfn.create_extraction_machine(sfn, FUNCTION, dlq)
        os.environ["AGENT_MEMORY_EXTRACTION_STATE_MACHINE_ARN"] = machine
        api_function = load_function("api")
        indexer = load_function("indexer")
        release = threading.Event()
        if execute:
            extraction = load_function("extraction")

            def task(payload: dict[str, Any]) -> Any:
                release.wait(60)
                return extraction.lambda_handler(payload, LambdaContext())

            stack.enter_context(moto_sfn.lambda_in_process({FUNCTION: task}))
        stack.enter_context(meter.installed())
        shape = CloudShape(
            meter=meter,
            api=ApiClient(lambda event, _: api_function.lambda_handler(event, LambdaContext())),
            services=api_function.api.services,
            machine=machine,
            indexer=indexer,
            sfn=sfn,
            release=release,
        )
        try:
            yield shape
        finally:
            release.set()
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            os.environ.pop("AGENT_MEMORY_DATA_DIR", None)
            os.environ.pop("AGENT_MEMORY_EXTRACTION_STATE_MACHINE_ARN", None)
