"""template.yaml starts scheduled consolidations: an EventBridge Scheduler schedule invokes the
consolidation function every ConsolidationCheckRate, through a role that may invoke that
function only, and the function lists the scheduled agents without a Scan."""

from __future__ import annotations

import re

import pytest
from test_console_template import load_template

pytestmark = pytest.mark.unit


def test_the_schedule_invokes_the_consolidation_function_at_the_check_rate():
    resources = load_template()["Resources"]
    schedule = resources["ConsolidationSchedule"]
    assert schedule["Type"] == "AWS::Scheduler::Schedule"
    properties = schedule["Properties"]
    assert properties["ScheduleExpression"] == ("Ref", "ConsolidationCheckRate")
    assert properties["FlexibleTimeWindow"] == {"Mode": "OFF"}
    target = properties["Target"]
    # The alias: SnapStart starts published versions only (tests/unit/test_snapstart.py).
    assert target["Arn"] == ("Ref", "ConsolidationFunction.Alias")
    assert target["RoleArn"] == ("GetAtt", "ConsolidationScheduleRole.Arn")


def test_the_schedule_role_may_invoke_the_consolidation_function_only():
    role = load_template()["Resources"]["ConsolidationScheduleRole"]["Properties"]
    [trust] = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "scheduler.amazonaws.com"}
    [policy] = role["Policies"]
    [statement] = policy["PolicyDocument"]["Statement"]
    assert statement["Action"] == "lambda:InvokeFunction"
    assert statement["Resource"] == ("Ref", "ConsolidationFunction.Alias")


def test_the_function_runs_the_scheduled_handler_with_its_own_logs_and_no_scan():
    resources = load_template()["Resources"]
    function = resources["ConsolidationFunction"]["Properties"]
    assert (function["CodeUri"], function["Handler"]) == (
        "functions/consolidation/",
        "app.lambda_handler",
    )
    assert function["LoggingConfig"]["LogGroup"] == ("Ref", "ConsolidationFunctionLogs")
    assert resources["ConsolidationFunctionLogs"]["Type"] == "AWS::Logs::LogGroup"
    actions = [
        action
        for policy in function["Policies"]
        for statement in policy["Statement"]
        for action in statement["Action"]
        if isinstance(statement["Action"], list)
    ]
    assert "dynamodb:Query" in actions
    assert "dynamodb:Scan" not in actions


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
