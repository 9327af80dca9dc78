"""Run the real extraction state machine under moto, with its Lambda tasks in this process.

moto 5.2.5 executes Step Functions definitions with its ASL interpreter when configured with
`{"stepfunctions": {"execute_state_machine": True}}`, but it runs a Lambda task by calling
moto's Lambda, which would need the function deployed (and Docker). This hook replaces the
interpreter's private `lambda_eval_utils._invoke_lambda_function(parameters, region,
state_credentials)` with a call of our handler, answering as Lambda's Invoke does: the result
as Payload, or FunctionError "Unhandled" with {"errorType", "errorMessage"} when the handler
raises (so Retry and Catch see the exception's class name as the error). The hook is private to
moto: moto is pinned (pyproject.toml) and tests/integration/test_extraction_statemachine.py
tests the hook itself, so an upgrade that moves it fails loudly.

Retry intervals are real sleeps in moto; `no_sleep` records them instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import moto
from moto.stepfunctions.parser.asl.component.common.retry import retrier_decl
from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils

MOTO_VERSION = "5.2.5"
CONFIG = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}

Handler = Callable[[dict[str, Any]], Any]
ASL = Path(__file__).resolve().parents[1] / "functions" / "extraction" / "statemachine.asl.json"


def create_extraction_machine(sfn: Any, function_arn: str, dlq_url: str) -> str:
    """The real extraction state machine, made in moto with the template's placeholders filled
    (its Lambda tasks call `function_arn`, its failures go to `dlq_url`); its ARN."""
    definition = ASL.read_text()
    definition = definition.replace("${ExtractionFunctionArn}", function_arn)
    definition = definition.replace("${ExtractionDLQUrl}", dlq_url)
    return str(
        sfn.create_state_machine(
            name="extraction",
            definition=definition,
            roleArn="arn:aws:iam::123456789012:role/extraction",
            type="STANDARD",
        )["stateMachineArn"]
    )


def check_pinned() -> None:
    if moto.__version__ != MOTO_VERSION:
        raise RuntimeError(
            f"tests/moto_sfn.py hooks moto {MOTO_VERSION}'s private ASL Lambda call; "
            f"moto is {moto.__version__}: check the hook, then the pin"
        )


def invoke(handlers: dict[str, Handler], calls: list[dict[str, Any]]) -> Callable[..., Any]:
    def _invoke_lambda_function(parameters: dict, region: str, state_credentials: Any) -> dict:
        raw = parameters.get("Payload") or b"{}"
        payload = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
        calls.append(payload)
        handler = handlers[parameters["FunctionName"]]
        try:
            result = handler(payload)
        except Exception as exc:  # noqa: BLE001 - Lambda reports it as a function error
            return {
                "StatusCode": 200,
                "FunctionError": "Unhandled",
                "Payload": {"errorType": type(exc).__name__, "errorMessage": str(exc)},
            }
        return {"StatusCode": 200, "Payload": result, "ExecutedVersion": "$LATEST"}

    return _invoke_lambda_function


@contextmanager
def lambda_in_process(handlers: dict[str, Handler]) -> Iterator[list[dict[str, Any]]]:
    """While open, Lambda tasks of executed state machines call `handlers` (by FunctionName);
    yields the list of payloads they were called with."""
    check_pinned()
    calls: list[dict[str, Any]] = []
    original = lambda_eval_utils._invoke_lambda_function
    lambda_eval_utils._invoke_lambda_function = invoke(handlers, calls)
    try:
        yield calls
    finally:
        lambda_eval_utils._invoke_lambda_function = original


@contextmanager
def no_sleep() -> Iterator[list[float]]:
    """Retry waits are recorded, not slept."""
    slept: list[float] = []
    original = retrier_decl.time
    retrier_decl.time = SimpleNamespace(sleep=slept.append)  # type: ignore[assignment]
    try:
        yield slept
    finally:
        retrier_decl.time = original
