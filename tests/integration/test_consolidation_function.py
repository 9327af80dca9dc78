"""The consolidation state machine (functions/consolidation/statemachine.asl.json), what the
template's EventBridge Scheduler schedule starts, executed by moto's ASL interpreter with its
Lambda tasks running functions/consolidation/app.lambda_handler in this process
(tests/moto_sfn.py), configured as template.yaml configures it, on DynamoDB under moto."""

import importlib.util
import json
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import boto3
import pytest
from test_api_consolidation import committed, head
from test_api_record_expiry import iso
from test_api_records import A, manifest

import moto_sfn
from agent_memory.adapters import consolidation_steps
from agent_memory.api.app import Api
from agent_memory.domain.extraction.consolidation import SCHEDULED
from agent_memory.domain.kernel.errors import InvalidRequest
from agent_memory.domain.records.sweeper import SWEEPER
from apiclient import ApiClient, drained

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[2]
FUNCTION_FILE = ROOT / "functions" / "consolidation" / "app.py"
ASL = ROOT / "functions" / "consolidation" / "statemachine.asl.json"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:ConsolidationFunction"
APP_RUN = "/v1/agents/teams/web/app-run"
NEVER = "/v1/agents/teams/web/never"
OTHER = "/v1/agents/teams/web/other"


@dataclass
class Context:
    function_name: str = "ConsolidationFunction"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = FUNCTION
    aws_request_id: str = "req-1"


@dataclass
class Cloud:
    api: ApiClient
    module: object
    sfn: object
    machine: str
    calls: list
    failing: set

    def check(self) -> dict:
        """One check, as the schedule starts it (its input `{}`), run to its end."""
        # Named, as moto would name every unnamed execution alike (the scheduler names its own)
        started = self.sfn.start_execution(
            stateMachineArn=self.machine, name=uuid.uuid4().hex, input="{}"
        )
        deadline = time.monotonic() + 60
        while True:
            described = self.sfn.describe_execution(executionArn=started["executionArn"])
            if described["status"] != "RUNNING":
                return described
            assert time.monotonic() < deadline, "the execution did not finish"
            time.sleep(0.05)

    def steps(self) -> list[str]:
        return [call["step"] for call in self.calls]


@pytest.fixture
def cloud(aws_env, monkeypatch):
    from moto import mock_aws

    from agent_memory.adapters.dynamodb import DynamoStore

    for name, value in {
        "AGENT_MEMORY_STORE": "dynamodb",
        "AGENT_MEMORY_TABLE_NAME": "agent-memory-consolidation",
        "AGENT_MEMORY_EMBEDDINGS": "none",
        "POWERTOOLS_SERVICE_NAME": "agent-memory",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws(config=moto_sfn.CONFIG):
        DynamoStore("agent-memory-consolidation", "us-east-1").create_table()
        sfn = boto3.client("stepfunctions", region_name="us-east-1")
        machine = sfn.create_state_machine(
            name="consolidation",
            definition=ASL.read_text().replace("${ConsolidationFunctionArn}", FUNCTION),
            roleArn="arn:aws:iam::123456789012:role/consolidation-sfn",
            type="STANDARD",
        )["stateMachineArn"]
        spec = importlib.util.spec_from_file_location(
            f"consolidation_{uuid.uuid4().hex}", FUNCTION_FILE
        )
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        failing: set[str] = set()

        def handler(payload):
            if payload.get("agentId") in failing:
                raise RuntimeError(f"{payload['agentId']} is unreachable")
            return module.lambda_handler(payload, Context())

        with moto_sfn.lambda_in_process({FUNCTION: handler}) as calls, moto_sfn.no_sleep():
            api = ApiClient(drained(Api(module.services).handle, module.services))
            yield Cloud(api, module, sfn, machine, calls, failing)


def runs(api, path):
    return api.ok("GET", f"{path}/-/consolidations")["consolidations"]


def test_a_check_expires_what_is_due_then_consolidates_the_due_agents(cloud):
    # Given an agent consolidated every day that never has been and holds a fact twice, one on
    # the same schedule an app consolidated a moment ago, and one with no schedule whose record
    # expired a minute ago
    api = cloud.api
    api.ok("PUT", A, manifest(consolidation={"every": "P1D"}), expect=201)
    first, again = committed(api, "Melanie paints landscapes", "Melanie paints landscapes")
    api.ok("PUT", APP_RUN, manifest(consolidation={"every": "P1D"}), expect=201)
    app_run = api.ok("POST", f"{APP_RUN}/-/consolidate")["id"]
    api.ok("PUT", NEVER, manifest(), expect=201)
    [gone] = committed(api, "The office is closed on Friday")
    api.ok("PATCH", f"{A}/-/records/{gone['id']}", {"expiresAt": iso(datetime.now(UTC))})
    cloud.calls.clear()

    # When the schedule starts the state machine
    execution = cloud.check()

    # Then it succeeded: the expiry written down first, then the due agent alone consolidated
    assert execution["status"] == "SUCCEEDED"
    assert cloud.steps() == ["expire", "due", "consolidate"]
    assert cloud.calls[2]["agentId"] == "teams/web/releases"
    [run] = runs(api, A)
    assert (run["actor"], run["counts"]["merged"]) == (SCHEDULED, 1)
    assert {head(api, first)["status"], head(api, again)["status"]} == {"ACTIVE", "SUPERSEDED"}
    assert [r["id"] for r in runs(api, APP_RUN)] == [app_run]
    assert runs(api, NEVER) == []
    # the expired record has its `expire` version by the sweeper, and an audit entry
    versions = api.ok("GET", f"{A}/-/records/{gone['id']}/versions")["versions"]
    assert [v["operation"] for v in versions] == ["expire", "set_expiry", "create"]
    assert versions[0]["changedBy"]["actor"] == SWEEPER
    entries = api.ok("GET", "/v1/audit", actor=SWEEPER)["entries"]
    assert [(e["method"], e["target"]) for e in entries] == [("EXPIRE", f"records/{gone['id']}")]
    output = json.loads(execution["output"])
    assert output["expiry"]["expired"] == 1
    assert output["consolidated"][0]["result"]["runId"] == run["id"]

    # And a second check within the day finds nothing to expire or consolidate
    cloud.calls.clear()
    assert cloud.check()["status"] == "SUCCEEDED"
    assert cloud.steps() == ["expire", "due"]
    assert len(runs(api, A)) == 1
    assert len(api.ok("GET", f"{A}/-/records/{gone['id']}/versions")["versions"]) == 3


def test_one_agents_failure_is_retried_and_caught_without_stopping_the_others(cloud):
    # Given two due agents, one whose every run fails
    api = cloud.api
    for path in (A, OTHER):
        api.ok("PUT", path, manifest(consolidation={"every": "P1D"}), expect=201)
    cloud.failing.add("teams/web/other")
    cloud.calls.clear()

    # When the schedule starts the state machine
    execution = cloud.check()

    # Then the check succeeded, the failing agent tried three times, the other consolidated
    assert execution["status"] == "SUCCEEDED"
    tried = [c["agentId"] for c in cloud.calls if c["step"] == "consolidate"]
    assert tried.count("teams/web/other") == 3
    assert tried.count("teams/web/releases") == 1
    assert len(runs(api, A)) == 1
    assert runs(api, OTHER) == []
    results = json.loads(execution["output"])["consolidated"]
    failed = [r for r in results if "error" in r]
    assert [(r["agentId"], r["error"]["Error"]) for r in failed] == [
        ("teams/web/other", "RuntimeError")
    ]

    # And once it recovers, the next check consolidates it: it is still due
    cloud.failing.clear()
    assert cloud.check()["status"] == "SUCCEEDED"
    assert len(runs(api, OTHER)) == 1
    assert len(runs(api, A)) == 1


def test_due_agents_are_listed_a_page_at_a_time(cloud, monkeypatch):
    # Given three due agents and pages of one agent
    monkeypatch.setattr(consolidation_steps, "DUE_PAGE", 1)
    api = cloud.api
    for path in (A, APP_RUN, OTHER):
        api.ok("PUT", path, manifest(consolidation={"every": "P1D"}), expect=201)
    cloud.calls.clear()

    # When a check runs, then each page lists the next agent and each is consolidated once
    assert cloud.check()["status"] == "SUCCEEDED"
    assert cloud.steps() == ["expire"] + ["due", "consolidate"] * 3
    listed = [c.get("after") for c in cloud.calls if c["step"] == "due"]
    assert listed[0] is None
    assert [a["agentId"] for a in listed[1:]] == ["teams/web/app-run", "teams/web/other"]
    assert all(len(runs(api, path)) == 1 for path in (A, APP_RUN, OTHER))


def test_a_retried_consolidate_step_runs_the_agent_once(cloud):
    # Given a due agent, consolidated by a first attempt of its task
    api = cloud.api
    api.ok("PUT", A, manifest(consolidation={"every": "P1D"}), expect=201)
    task = {"step": "consolidate", "tenant": "acme", "agentId": "teams/web/releases"}
    first = cloud.module.lambda_handler({**task, "every": "P1D"}, Context())
    # When the task is retried, then nothing is run again
    again = cloud.module.lambda_handler({**task, "every": "P1D"}, Context())
    assert first["runId"] is not None
    assert again == {"runId": None, "skipped": "not due"}
    assert [r["id"] for r in runs(api, A)] == [first["runId"]]


@pytest.mark.parametrize(
    "event",
    [
        {"step": "reindex"},
        {},
        {"step": "consolidate", "tenant": "acme", "every": "P1D"},
        {"step": "consolidate", "tenant": "", "agentId": "teams/web/releases", "every": "P1D"},
        {"step": "consolidate", "tenant": "acme", "agentId": "a//b", "every": "P1D"},
        {"step": "consolidate", "tenant": "acme", "agentId": "teams/web/releases", "every": "1d"},
        {"step": "consolidate", "tenant": "acme", "agentId": "teams/web/releases"},
        {"step": "expire", "rounds": -1},
        {"step": "expire", "rounds": "2"},
        {"step": "due", "after": "teams/web", "pages": 0},
        {"step": "due", "after": None, "pages": True},
    ],
)
def test_a_task_event_it_cannot_read_is_refused_and_changes_nothing(cloud, event):
    # Given a due agent
    api = cloud.api
    api.ok("PUT", A, manifest(consolidation={"every": "P1D"}), expect=201)
    # When a task's event is malformed, then it is InvalidRequest (never retried)
    with pytest.raises(InvalidRequest):
        cloud.module.steps.run(event)
    assert runs(api, A) == []


def test_the_expire_step_bounds_its_rounds(cloud, monkeypatch):
    # Given more expired records than one step expires, in batches of one
    monkeypatch.setattr(consolidation_steps, "BATCH", 1)
    monkeypatch.setattr(consolidation_steps, "EXPIRE_BATCHES", 1)
    monkeypatch.setattr(consolidation_steps, "EXPIRE_ROUNDS", 2)
    api = cloud.api
    api.ok("PUT", A, manifest(), expect=201)
    made = committed(api, "The office is closed on Friday", "The canteen shuts at two", "Lunch")
    past = iso(datetime.now(UTC) - timedelta(minutes=1))
    for record in made:
        api.ok("PATCH", f"{A}/-/records/{record['id']}", {"expiresAt": past})
    cloud.calls.clear()

    # When a check runs, then it asks twice (its bound) and leaves the third to the next check
    execution = cloud.check()
    assert execution["status"] == "SUCCEEDED"
    assert cloud.steps() == ["expire", "expire", "due"]
    statuses = sorted(head(api, r)["status"] for r in made)
    assert statuses == ["EXPIRED", "EXPIRED", "EXPIRED"]  # reads judge it expired regardless
    stored = cloud.module.services.store.records_expiring(datetime.now(UTC), 10)
    assert len(stored) == 1
    cloud.check()
    assert cloud.module.services.store.records_expiring(datetime.now(UTC), 10) == []
