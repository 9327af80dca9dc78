"""The real extraction state machine (functions/extraction/statemachine.asl.json) executed by
moto's ASL interpreter, its Lambda tasks running functions/extraction/app.lambda_handler in
this process (tests/moto_sfn.py), on the DynamoDB store under moto.

Executions are started directly by the API's commit (StepFunctionsStarter.start_execution):
moto's EventBridge cannot deliver to Lambda or Step Functions targets, and a direct start named
after the turn is what the cloud does too."""

from __future__ import annotations

import importlib.util
import json
import time
from dataclasses import dataclass
from pathlib import Path

import boto3
import pytest

import moto_sfn
from agent_memory.api.app import Api
from agent_memory.domain.extraction.model import ModelUnavailable
from apiclient import ApiClient, drained

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[2]
ASL = ROOT / "functions" / "extraction" / "statemachine.asl.json"
HANDLER = ROOT / "functions" / "extraction" / "app.py"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:ExtractionFunction"
A = "/v1/agents/teams/web/releases"


@dataclass
class Context:
    function_name: str = "ExtractionFunction"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = FUNCTION
    aws_request_id: str = "req-1"


@dataclass
class Cloud:
    api: ApiClient
    module: object
    sfn: object
    sqs: object
    dlq: str
    machine: str
    calls: list
    slept: list


@pytest.fixture
def cloud(aws_env, monkeypatch, tmp_path):
    from moto import mock_aws

    from agent_memory.adapters.dynamodb import DynamoStore

    with mock_aws(config=moto_sfn.CONFIG):
        DynamoStore("agent-memory-sfn", "us-east-1").create_table()
        sqs = boto3.client("sqs", region_name="us-east-1")
        dlq = sqs.create_queue(QueueName="extraction-dlq")["QueueUrl"]
        sfn = boto3.client("stepfunctions", region_name="us-east-1")
        definition = (
            ASL.read_text()
            .replace("${ExtractionFunctionArn}", FUNCTION)
            .replace("${ExtractionDLQUrl}", dlq)
        )
        machine = sfn.create_state_machine(
            name="extraction",
            definition=definition,
            roleArn="arn:aws:iam::123456789012:role/extraction-sfn",
            type="STANDARD",
        )["stateMachineArn"]
        # As template.yaml configures the functions (the model: offline, for the test).
        for name, value in {
            "AGENT_MEMORY_STORE": "dynamodb",
            "AGENT_MEMORY_TABLE_NAME": "agent-memory-sfn",
            "AGENT_MEMORY_EXTRACTION_STATE_MACHINE_ARN": machine,
            "AGENT_MEMORY_EXTRACTION_MODEL": "rule_based",
            "AGENT_MEMORY_EMBEDDINGS": "none",
            "AGENT_MEMORY_DATA_DIR": str(tmp_path),
            "POWERTOOLS_SERVICE_NAME": "agent-memory",
        }.items():
            monkeypatch.setenv(name, value)
        spec = importlib.util.spec_from_file_location("extraction_app", HANDLER)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        handlers = {FUNCTION: lambda payload: module.lambda_handler(payload, Context())}
        with moto_sfn.lambda_in_process(handlers) as calls, moto_sfn.no_sleep() as slept:
            api = ApiClient(drained(Api(module.services).handle, module.services))
            yield Cloud(api, module, sfn, sqs, dlq, machine, calls, slept)


def commit_a_turn(cloud: Cloud, *texts: str) -> tuple[str, dict]:
    api = cloud.api
    if api.call("GET", A)[0] == 404:
        api.ok(
            "PUT",
            A,
            {"harness": {"memory": {"enabled": True, "scope": {"write": ["session", "agent"]}}}},
            expect=201,
        )
    s = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    t = api.ok("POST", f"{A}/-/sessions/{s}/turns", expect=201)
    path = f"{A}/-/sessions/{s}/turns/{t['id']}"
    api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": x} for x in texts]})
    return s, api.ok("POST", f"{path}/commit")


def finished(cloud: Cloud, timeout: float = 30.0) -> dict:
    [execution] = cloud.sfn.list_executions(stateMachineArn=cloud.machine)["executions"]
    deadline = time.monotonic() + timeout
    while True:
        described = cloud.sfn.describe_execution(executionArn=execution["executionArn"])
        if described["status"] != "RUNNING":
            return described
        assert time.monotonic() < deadline, "the execution did not finish"
        time.sleep(0.05)


def steps(cloud: Cloud) -> list[str]:
    return [c["step"] for c in cloud.calls]


def test_the_moto_hook_is_the_pinned_private_call():
    # tests/moto_sfn.py replaces this private function; a moto upgrade must keep it.
    import inspect

    from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils

    moto_sfn.check_pinned()
    params = list(inspect.signature(lambda_eval_utils._invoke_lambda_function).parameters)
    assert params == ["parameters", "region", "state_credentials"]
    seen = []
    hook = moto_sfn.invoke({"fn": lambda p: {"echo": p}}, seen)
    ok = hook({"FunctionName": "fn", "Payload": b'{"a": 1}'}, "us-east-1", None)
    assert ok["Payload"] == {"echo": {"a": 1}} and "FunctionError" not in ok

    def boom(payload):
        raise ModelUnavailable("overloaded")

    failed = moto_sfn.invoke({"fn": boom}, seen)({"FunctionName": "fn"}, "us-east-1", None)
    assert failed["FunctionError"] == "Unhandled"
    assert failed["Payload"]["errorType"] == "ModelUnavailable"
    assert seen == [{"a": 1}, {}]


def test_a_commit_starts_an_execution_named_after_the_turn_that_reviews_it(cloud):
    s, committed = commit_a_turn(cloud, "I live in Lisbon. I prefer tea.")
    assert committed["extraction"]["status"] == "queued"
    described = finished(cloud)
    assert described["status"] == "SUCCEEDED", described
    assert described["name"].startswith(committed["id"])
    assert steps(cloud) == ["begin", "propose", "decide", "apply"]
    output = json.loads(described["output"])
    assert output["result"]["extraction"]["added"] == 2

    turn = cloud.api.ok("GET", f"{A}/-/sessions/{s}/turns/{committed['id']}")
    assert (turn["extraction"]["status"], turn["extraction"]["modelCalls"]) == ("done", 2)
    # The turn's messages are flagged read, in the same transaction, through the steps' payloads.
    assert turn["reviewed"] is True
    records = cloud.api.ok("GET", f"{A}/-/records")["records"]
    assert sorted(r["summary"] for r in records) == ["User lives in Lisbon", "User prefers tea"]

    # A duplicate start (a retried commit hook) is a no-op: same name, same input.
    from datetime import datetime

    from agent_memory.domain.extraction.job import ExtractionJob

    born = datetime.fromisoformat(turn["createdAt"].replace("Z", "+00:00")).isoformat()

    job = ExtractionJob("acme", "teams/web/releases", s, committed["id"], born=born)
    cloud.module.services.starter.start(job)
    assert len(cloud.sfn.list_executions(stateMachineArn=cloud.machine)["executions"]) == 1


class Flaky:
    """Wraps the model: its first `failures` calls raise ModelUnavailable."""

    def __init__(self, model, failures):
        self.model, self.failures, self.calls = model, failures, 0
        self.model_id, self.restates = model.model_id, model.restates

    def _gate(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise ModelUnavailable("the model is overloaded")

    def propose(self, *args):
        self._gate()
        return self.model.propose(*args)

    def decide(self, *args):
        self._gate()
        return self.model.decide(*args)


def test_a_failing_step_is_retried_with_backoff(cloud):
    extraction = cloud.module.services.extraction
    extraction.model = Flaky(extraction.model, failures=2)
    s, committed = commit_a_turn(cloud, "I live in Lisbon.")
    described = finished(cloud)
    assert described["status"] == "SUCCEEDED", described
    assert steps(cloud) == ["begin", "propose", "propose", "propose", "decide", "apply"]
    assert len(cloud.slept) == 2  # two waits of the Retry (full jitter: up to 2 s, then 4 s)
    assert all(0 <= wait <= 4 for wait in cloud.slept)
    turn = cloud.api.ok("GET", f"{A}/-/sessions/{s}/turns/{committed['id']}")
    assert (turn["extraction"]["status"], turn["extraction"]["added"]) == ("done", 1)


def test_a_step_failing_past_its_retries_is_caught_recorded_and_sent_to_the_dlq(cloud):
    extraction = cloud.module.services.extraction
    extraction.model = Flaky(extraction.model, failures=100)
    s, committed = commit_a_turn(cloud, "I live in Lisbon.")
    described = finished(cloud)
    assert described["status"] == "FAILED"
    # Three attempts after the first (MaxAttempts 3), then the Catch records the failure.
    assert steps(cloud) == ["begin", "propose", "propose", "propose", "propose", "fail"]

    turn = cloud.api.ok("GET", f"{A}/-/sessions/{s}/turns/{committed['id']}")
    assert turn["status"] == "committed"  # the turn never fails with its review
    review = turn["extraction"]
    assert review["status"] == "failed"
    assert review["error"].startswith("ModelUnavailable")
    assert cloud.api.ok("GET", f"{A}/-/records")["records"] == []

    messages = cloud.sqs.receive_message(QueueUrl=cloud.dlq, MaxNumberOfMessages=10)["Messages"]
    [body] = [json.loads(m["Body"]) for m in messages]
    assert body["turnId"] == committed["id"]
    assert body["job"]["sessionId"] == s
    assert body["error"]["Error"] == "ModelUnavailable"


def test_a_window_that_keeps_moving_ends_the_review_after_five_tries(cloud, monkeypatch):
    # ReviewWindowMoved sends the review back to Begin; a review that kept losing its window to
    # others once looped without end. After five it is recorded as failed, as the embedded
    # runner's bound has it.
    from agent_memory.domain.extraction.service import ReviewWindowMoved

    def always_moved(job, proposal, decision):
        raise ReviewWindowMoved("another review read some of these messages first")

    monkeypatch.setattr(cloud.module.services.extraction, "apply", always_moved)
    s, committed = commit_a_turn(cloud, "I live in Lisbon.")
    described = finished(cloud)
    assert described["status"] == "FAILED"
    assert steps(cloud).count("begin") == 5 and steps(cloud)[-1] == "fail"
    review = cloud.api.ok("GET", f"{A}/-/sessions/{s}/turns/{committed['id']}")["extraction"]
    assert review["status"] == "failed" and review["error"].startswith("ReviewWindowMoved")


def test_a_turn_without_a_session_is_reviewed_by_the_state_machine(cloud):
    # Given an agent that reads and writes agent scope alone, and a wake's turn that said a fact
    api = cloud.api
    only = {"read": ["agent"], "write": ["agent"]}
    api.ok("PUT", A, {"harness": {"memory": {"enabled": True, "scope": only}}}, expect=201)
    t = api.ok("POST", f"{A}/-/turns", {"started_by": "wake"}, expect=201)
    path = f"{A}/-/turns/{t['id']}"
    api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": "I live in Lisbon."}]})
    # When it commits, the state machine reviews it
    assert api.ok("POST", f"{path}/commit")["extraction"]["status"] == "queued"
    described = finished(cloud)
    assert described["status"] == "SUCCEEDED", described
    assert api.ok("GET", path)["extraction"]["status"] == "done"
    # Then its record is agent scope, names no session, and names the review's execution
    [record] = api.ok("GET", f"{A}/-/records")["records"]
    assert (record["summary"], record["scope"], record["sessionId"]) == (
        "User lives in Lisbon",
        "agent",
        None,
    )
    provenance = record["provenance"]
    assert provenance["execution"] == provenance["invocation"] == f"extraction:{t['id']}"
    assert (provenance["sessionId"], provenance["turnId"]) == (None, t["id"])
