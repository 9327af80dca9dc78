"""The state machine's task events are read by adapters/extraction/steps.py: each step reaches
the service with typed arguments, and a malformed event is InvalidRequest before any step runs."""

from typing import Any

import pytest

from agent_memory.adapters.extraction.steps import run_step
from agent_memory.domain.errors import InvalidRequest
from agent_memory.domain.extraction.job import ExtractionJob

JOB = {"tenant": "acme", "agentId": "teams/web", "sessionId": "ses_1", "turnId": "trn_1"}


class Recorder:
    """Stands in for ExtractionService: records which step ran with which arguments."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, step: str):  # noqa: ANN204 - any step name
        def call(*args: Any) -> Any:
            self.calls.append((step, args))
            # begin answers whether the review is done; apply and fail the review (None: gone).
            return True if step == "begin" else None

        return call


def test_each_step_gets_the_job_and_its_inputs():
    service = Recorder()
    job = ExtractionJob.from_dict(JOB)
    assert run_step(service, {"step": "begin", "job": JOB}) == {"done": True}
    run_step(service, {"step": "propose", "job": JOB})
    run_step(service, {"step": "decide", "job": JOB, "proposal": {"candidates": []}})
    run_step(service, {"step": "apply", "job": JOB, "proposal": {"a": 1}, "decision": {"b": 2}})
    assert service.calls == [
        ("begin", (job,)),
        ("propose", (job,)),
        ("decide", (job, {"candidates": []})),
        ("apply", (job, {"a": 1}, {"b": 2})),
    ]


def test_missing_inputs_are_empty_and_a_failure_names_the_catchs_error():
    service = Recorder()
    job = ExtractionJob.from_dict(JOB)
    run_step(service, {"step": "decide", "job": JOB, "proposal": None})
    error = {"Error": "ModelOutputInvalid", "Cause": "not JSON"}
    run_step(service, {"step": "fail", "job": JOB, "error": error})
    run_step(service, {"step": "fail", "job": JOB})
    assert service.calls == [
        ("decide", (job, {})),
        ("fail", (job, "ModelOutputInvalid: not JSON")),
        ("fail", (job, "Error: ")),
    ]


@pytest.mark.parametrize(
    ("event", "code"),
    [
        ({"step": "summarise", "job": JOB}, "invalid_step"),
        ({"job": JOB}, "invalid_step"),
        ({"step": "decide", "job": JOB, "proposal": ["not", "an", "object"]}, "invalid_step"),
        ({"step": "begin"}, "invalid_job"),
        ({"step": "begin", "job": {"tenant": "acme"}}, "invalid_job"),
    ],
)
def test_a_malformed_event_runs_no_step(event, code):
    service = Recorder()
    with pytest.raises(InvalidRequest) as raised:
        run_step(service, event)
    assert raised.value.code == code
    assert service.calls == []
