"""template.yaml starts scheduled expiry and consolidation the way extraction is run: an
EventBridge Scheduler schedule starts ConsolidationStateMachine every ConsolidationCheckRate,
through a role that may start that state machine only; the state machine's role may invoke
its function only; the function finds scheduled agents and expiring records without a Scan."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_console_template import load_template

pytestmark = pytest.mark.unit

ASL = Path(__file__).parents[2] / "functions" / "consolidation" / "statemachine.asl.json"


def test_the_schedule_starts_the_consolidation_state_machine_at_the_check_rate():
    resources = load_template()["Resources"]
    schedule = resources["ConsolidationSchedule"]
    assert schedule["Type"] == "AWS::Scheduler::Schedule"
    properties = schedule["Properties"]
    assert properties["ScheduleExpression"] == ("Ref", "ConsolidationCheckRate")
    assert properties["FlexibleTimeWindow"] == {"Mode": "OFF"}
    target = properties["Target"]
    assert target["Arn"] == ("Ref", "ConsolidationStateMachine")
    assert target["RoleArn"] == ("GetAtt", "ConsolidationScheduleRole.Arn")
    assert json.loads(target["Input"]) == {}
    # No function is invoked directly any more, so nothing configures its async retries
    assert "ConsolidationFunctionInvokeConfig" not in resources


def test_the_schedule_role_may_start_the_consolidation_state_machine_only():
    role = load_template()["Resources"]["ConsolidationScheduleRole"]["Properties"]
    [trust] = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "scheduler.amazonaws.com"}
    assert trust["Condition"] == {"StringEquals": {"aws:SourceAccount": ("Ref", "AWS::AccountId")}}
    [policy] = role["Policies"]
    [statement] = policy["PolicyDocument"]["Statement"]
    assert (statement["Effect"], statement["Action"]) == ("Allow", "states:StartExecution")
    assert statement["Resource"] == ("Ref", "ConsolidationStateMachine")


def test_the_state_machine_is_logged_and_may_invoke_its_function_only():
    resources = load_template()["Resources"]
    machine = resources["ConsolidationStateMachine"]
    assert machine["Type"] == "AWS::Serverless::StateMachine"
    properties = machine["Properties"]
    assert properties["Type"] == "STANDARD"
    assert properties["DefinitionUri"] == "functions/consolidation/statemachine.asl.json"
    assert properties["DefinitionSubstitutions"] == {
        # The alias: SnapStart starts published versions only (tests/unit/test_snapstart.py).
        "ConsolidationFunctionArn": ("Ref", "ConsolidationFunction.Alias")
    }
    [destination] = properties["Logging"]["Destinations"]
    assert destination["CloudWatchLogsLogGroup"]["LogGroupArn"] == (
        "GetAtt",
        "ConsolidationStateMachineLogs.Arn",
    )
    assert properties["Logging"]["IncludeExecutionData"] is False
    invoke, logs = properties["Policies"]
    assert invoke == {"LambdaInvokePolicy": {"FunctionName": ("Ref", "ConsolidationFunction")}}
    # The other statement is vended log delivery only, which takes no resource
    [statement] = logs["Statement"]
    assert all(action.startswith("logs:") for action in statement["Action"])
    # And every placeholder of the definition is one the template fills in
    placeholders = set(re.findall(r"\$\{(\w+)\}", ASL.read_text()))
    assert placeholders == set(properties["DefinitionSubstitutions"])


def test_the_function_runs_the_steps_with_its_own_logs_and_no_scan():
    resources = load_template()["Resources"]
    function = resources["ConsolidationFunction"]["Properties"]
    assert (function["CodeUri"], function["Handler"]) == (
        "functions/consolidation/",
        "app.lambda_handler",
    )
    assert function["LoggingConfig"]["LogGroup"] == ("Ref", "ConsolidationFunctionLogs")
    assert resources["ConsolidationFunctionLogs"]["Type"] == "AWS::Logs::LogGroup"
    statements = [statement for policy in function["Policies"] for statement in policy["Statement"]]
    actions = [
        a
        for s in statements
        for a in (s["Action"] if isinstance(s["Action"], list) else [s["Action"]])
    ]
    assert "dynamodb:Query" in actions
    assert "dynamodb:Scan" not in actions
    # No task outlives the function: each task's timeout is at most the function's
    states = json.loads(ASL.read_text())["States"]
    tasks = [states["Expire"], states["ListDue"]]
    tasks.append(states["ConsolidateEach"]["ItemProcessor"]["States"]["Consolidate"])
    assert all(task["TimeoutSeconds"] <= function["Timeout"] for task in tasks)


def test_the_table_keeps_a_sparse_expiring_index_of_record_heads():
    table = load_template()["Resources"]["Table"]["Properties"]
    [index] = table["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "expiring"
    assert index["KeySchema"] == [
        {"AttributeName": "expiring", "KeyType": "HASH"},
        {"AttributeName": "expires_at", "KeyType": "RANGE"},
    ]
    assert index["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    defined = {d["AttributeName"]: d["AttributeType"] for d in table["AttributeDefinitions"]}
    assert defined == {"pk": "S", "sk": "S", "expiring": "S", "expires_at": "S"}


def test_a_failed_check_is_alarmed_on_the_state_machine():
    alarm = load_template()["Resources"]["ConsolidationFailedAlarm"]["Properties"]
    assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/States", "ExecutionsFailed")
    [dimension] = alarm["Dimensions"]
    assert dimension["Value"] == ("Ref", "ConsolidationStateMachine")


@pytest.mark.parametrize(
    ("rate", "accepted"),
    [
        ("rate(1 hour)", True),
        ("rate(15 minutes)", True),
        ("rate(2 days)", True),
        ("rate(0 hours)", False),
        ("cron(0 * * * ? *)", False),
        ("rate(1 week)", False),
    ],
)
def test_the_check_rate_takes_rate_expressions_only(rate, accepted):
    parameter = load_template()["Parameters"]["ConsolidationCheckRate"]
    assert parameter["Default"] == "rate(1 hour)"
    assert bool(re.fullmatch(parameter["AllowedPattern"], rate)) is accepted
