"""Observability of the Lambda functions (functions/api/app.py under moto, configured as
template.yaml configures it): every module's logs are Powertools' JSON lines with the request
and correlation ids, and the counts a user watches are EMF metrics with their dimensions."""

import importlib
import io
import json
import logging
import sys

import pytest
from test_lambda_handler import EVENTS, Context

from agent_memory.adapters.observability import PowertoolsMetrics, traced

pytestmark = pytest.mark.integration


@pytest.fixture
def function(aws_env, monkeypatch):
    from moto import mock_aws

    from agent_memory.adapters.dynamodb import DynamoStore

    for name, value in {
        "AGENT_MEMORY_STORE": "dynamodb",
        "AGENT_MEMORY_TABLE_NAME": "agent-memory-observed",
        "AGENT_MEMORY_EMBEDDINGS": "none",
        "AGENT_MEMORY_EXTRACTION_MODEL": "none",
        "POWERTOOLS_SERVICE_NAME": "agent-memory",
        "POWERTOOLS_METRICS_NAMESPACE": "agent-memory-test",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        DynamoStore("agent-memory-observed", "us-east-1").create_table()
        sys.modules.pop("app", None)  # a cold start of its own
        module = importlib.import_module("app")
        # Powertools keeps one logger a service for the process and configures it once: one made
        # earlier in the run (tests/cloud_shape.py's, at WARNING) is reused with its level.
        module.logger.setLevel("INFO")
        logging.getLogger("agent_memory").setLevel(logging.INFO)
        handler = module.logger.registered_handler
        stream = handler.stream
        handler.setStream(io.StringIO())
        yield module
        handler.setStream(stream)
        sys.modules.pop("app", None)


def request(method: str, path: str, body: object = None, request_id: str = "req-1") -> dict:
    evt = json.loads((EVENTS / "create_session.json").read_text())
    evt["rawPath"] = evt["requestContext"]["http"]["path"] = path
    evt["pathParameters"] = {"proxy": path.removeprefix("/v1/agents/")}
    evt["requestContext"]["http"]["method"] = method
    evt["requestContext"]["requestId"] = request_id
    evt["body"] = json.dumps(body) if body is not None else None
    return evt


def call(module, evt: dict) -> dict:
    response = module.lambda_handler(evt, Context())
    assert response["statusCode"] < 300, response["body"]
    return json.loads(response["body"]) if response["body"] else {}


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_a_domain_modules_log_is_json_with_the_request_and_correlation_ids(function):
    put = json.loads((EVENTS / "put_agent.json").read_text())
    put["requestContext"]["requestId"] = "corr-42"
    call(function, put)
    lines = json_lines(function.logger.registered_handler.stream.getvalue())
    # domain/audit/service.py logs each change it audits, through its stdlib logger.
    audited = [line for line in lines if line["message"] == "audited"]
    assert len(audited) == 1
    assert audited[0]["name"] == "agent_memory.domain.audit.service"
    assert audited[0]["correlation_id"] == "corr-42"
    assert audited[0]["function_request_id"] == Context.aws_request_id
    assert audited[0]["actor"]  # its `extra=` fields are keys of the line
    # Printed once: the package's records do not reach the runtime's root handler as well.
    assert logging.getLogger("agent_memory").propagate is False


def emf(text: str) -> list[dict]:
    return [line for line in json_lines(text) if "_aws" in line]


def metric(line: dict) -> tuple[str, dict[str, str], float]:
    (definition,) = line["_aws"]["CloudWatchMetrics"]
    assert definition["Namespace"] == "agent-memory-test"
    (name,) = [m["Name"] for m in definition["Metrics"]]
    dimensions = {d: line[d] for d in definition["Dimensions"][0]}
    return name, dimensions, line[name]


def test_a_tool_call_and_a_commit_are_flushed_as_emf_metrics(function, capsys):
    call(function, json.loads((EVENTS / "put_agent.json").read_text()))
    base = "/v1/agents/teams/web/releases/-/sessions"
    session = call(function, request("POST", base, {}))["id"]
    turn = call(function, request("POST", f"{base}/{session}/turns", {}))["id"]
    capsys.readouterr()
    tools = f"{base}/{session}/turns/{turn}/tools"
    call(function, request("POST", f"{tools}/search_memory", {"caller": {"role": "agent"}}))
    refused = request("POST", f"{tools}/add_memory", {"caller": {"role": "agent"}})
    assert function.lambda_handler(refused, Context())["statusCode"] == 403
    call(function, request("POST", f"{base}/{session}/turns/{turn}/commit"))
    counted = [metric(line) for line in emf(capsys.readouterr().out)]
    # Each count is its own EMF line: its dimensions (beside Powertools' `service`) and value.
    assert [(n, {k: v for k, v in d.items() if k != "service"}, v) for n, d, v in counted] == [
        ("ToolCalls", {"tool": "search_memory", "outcome": "ok"}, [1.0]),
        ("ToolCalls", {"tool": "add_memory", "outcome": "tool_not_offered"}, [1.0]),
        ("TurnCommits", {}, [1.0]),
    ]


def test_a_metric_that_cannot_be_written_never_fails_the_request(capsys, caplog):
    # A value that is no number is refused by Powertools' validation: logged, not raised.
    PowertoolsMetrics("agent-memory-test").count("TurnCommits", "many")
    assert "metric not written" in caplog.text


def test_without_tracing_the_handler_is_itself_and_no_tracer_is_imported():
    def handler(event, context):
        return event

    assert traced(handler, False) is handler


def test_with_tracing_the_handler_runs_under_powertools_tracer(monkeypatch):
    # Outside Lambda the tracer records nothing (no X-Ray daemon to send to): this checks the
    # wrapping and that the X-Ray SDK the layer ships is importable.
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")

    def handler(event, context):
        return {"echo": event}

    wrapped = traced(handler, True)
    assert wrapped is not handler
    assert wrapped({"a": 1}, Context()) == {"echo": {"a": 1}}
