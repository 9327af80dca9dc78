"""functions/consolidation/app.lambda_handler (what the template's EventBridge Scheduler
schedule invokes), configured as template.yaml configures it, under moto."""

import importlib.util
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_api_consolidation import committed, head
from test_api_records import A, manifest

from agent_memory.api.app import Api
from agent_memory.domain.extraction.consolidation import SCHEDULED
from apiclient import ApiClient, drained

pytestmark = pytest.mark.integration

FUNCTION = Path(__file__).parents[2] / "functions" / "consolidation" / "app.py"
APP_RUN = "/v1/agents/teams/web/app-run"
NEVER = "/v1/agents/teams/web/never"
# What EventBridge Scheduler sends a Lambda target when the schedule gives no input.
SCHEDULED_EVENT: dict = {}


@dataclass
class Context:
    function_name: str = "ConsolidationFunction"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:Consolidation"
    aws_request_id: str = "req-1"


@pytest.fixture
def function(aws_env, monkeypatch):
    """The function's module after a cold start on a fresh table."""
    from moto import mock_aws

    from agent_memory.adapters.dynamodb import DynamoStore

    monkeypatch.setenv("AGENT_MEMORY_STORE", "dynamodb")
    monkeypatch.setenv("AGENT_MEMORY_TABLE_NAME", "agent-memory-consolidation")
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDINGS", "none")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "agent-memory")
    with mock_aws():
        DynamoStore("agent-memory-consolidation", "us-east-1").create_table()
        spec = importlib.util.spec_from_file_location(f"consolidation_{uuid.uuid4().hex}", FUNCTION)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module


def test_the_scheduled_function_consolidates_a_due_agent_and_skips_the_others(function):
    # Given, on the function's own table, an agent consolidated every day that never has been
    # and holds a fact twice, one on the same schedule an app consolidated a moment ago, and
    # one with no schedule
    api = ApiClient(drained(Api(function.services).handle, function.services))
    api.ok("PUT", A, manifest(consolidation={"every": "P1D"}), expect=201)
    first, again = committed(api, "Melanie paints landscapes", "Melanie paints landscapes")
    api.ok("PUT", APP_RUN, manifest(consolidation={"every": "P1D"}), expect=201)
    app_run = api.ok("POST", f"{APP_RUN}/-/consolidate")["id"]
    api.ok("PUT", NEVER, manifest(), expect=201)

    # When the schedule invokes the function
    result = function.lambda_handler(SCHEDULED_EVENT, Context())

    # Then the due agent alone was consolidated, by the schedule, its twin merged
    [run_id] = result["runIds"]
    [run] = api.ok("GET", f"{A}/-/consolidations")["consolidations"]
    assert (run["id"], run["actor"], run["counts"]["merged"]) == (run_id, SCHEDULED, 1)
    assert {head(api, first)["status"], head(api, again)["status"]} == {"ACTIVE", "SUPERSEDED"}
    [kept] = api.ok("GET", f"{APP_RUN}/-/consolidations")["consolidations"]
    assert kept["id"] == app_run
    assert api.ok("GET", f"{NEVER}/-/consolidations")["consolidations"] == []
    # And a second invocation within the day finds nothing due
    assert function.lambda_handler(SCHEDULED_EVENT, Context()) == {"runIds": []}


def test_a_deleted_agent_is_no_longer_consolidated(function):
    # Given an agent on a schedule, deleted before the schedule comes round
    api = ApiClient(drained(Api(function.services).handle, function.services))
    api.ok("PUT", A, manifest(consolidation={"every": "P1D"}), expect=201)
    api.ok("DELETE", A, expect=204)

    # When the schedule invokes the function, then there is nothing to consolidate
    assert function.lambda_handler(SCHEDULED_EVENT, Context()) == {"runIds": []}
