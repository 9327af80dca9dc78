"""The state machine's task events are read by adapters/extraction/steps.py: each step reaches
the service with typed arguments, and a malformed event is InvalidRequest before any step runs."""

from typing import Any

import pytest

from agent_memory.adapters.extraction.steps import run_step
from agent_memory.domain.extraction.job import ExtractionJob
from agent_memory.domain.extraction.model import Candidate, Decision, Decisions, Proposal
from agent_memory.domain.kernel.errors import InvalidRequest

JOB = {"tenant": "acme", "agentId": "teams/web", "sessionId": "ses_1", "turnId": "trn_1"}


class Recorder:
    """Stands in for ExtractionService: records which step ran with which arguments."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, step: str):  # noqa: ANN204 - any step name
        def call(*args: Any) -> Any:
            self.calls.append((step, args))
            # begin answers whether the review is done; propose and decide their inputs to the
            # next step; apply and fail the review (None: gone).
            return {"begin": True, "propose": Proposal(), "decide": Decisions()}.get(step)

        return call


def test_each_step_gets_the_job_and_its_inputs():
    service = Recorder()
    job = ExtractionJob.from_dict(JOB)
    assert run_step(service, {"step": "begin", "job": JOB}) == {"done": True}
    assert run_step(service, {"step": "propose", "job": JOB}) == {
        "messages": None,
        "candidates": [],
        "usage": [],
        "read": [],
        "through": None,
    }
    candidate = {"summary": "lives in Lisbon", "kind": "fact"}
    proposal = {"messages": 2, "candidates": [candidate], "read": ["trn_1"], "through": 1}
    decision = {"decisions": [{"candidate": 0, "action": "add"}], "shown": ["rec_1"]}
    assert run_step(service, {"step": "decide", "job": JOB, "proposal": proposal}) == {
        "decisions": [],
        "shown": [],
        "usage": [],
    }
    run_step(service, {"step": "apply", "job": JOB, "proposal": proposal, "decision": decision})
    typed = Proposal(messages=2, candidates=[Candidate(**candidate)], read=["trn_1"], through=1)
    decided = Decisions(decisions=[Decision(candidate=0, action="add")], shown=["rec_1"])
    assert service.calls == [
        ("begin", (job,)),
        ("propose", (job,)),
        ("decide", (job, typed)),
        ("apply", (job, typed, decided)),
    ]


def test_missing_inputs_are_empty_and_a_failure_names_the_catchs_error():
    service = Recorder()
    job = ExtractionJob.from_dict(JOB)
    run_step(service, {"step": "decide", "job": JOB, "proposal": None})
    error = {"Error": "ModelOutputInvalid", "Cause": "not JSON"}
    run_step(service, {"step": "fail", "job": JOB, "error": error})
    run_step(service, {"step": "fail", "job": JOB})
    assert service.calls == [
        ("decide", (job, Proposal())),
        ("fail", (job, "ModelOutputInvalid: not JSON")),
        ("fail", (job, "Error: ")),
    ]


@pytest.mark.parametrize(
    ("event", "code"),
    [
        ({"step": "summarise", "job": JOB}, "invalid_step"),
        ({"job": JOB}, "invalid_step"),
        ({"step": "decide", "job": JOB, "proposal": ["not", "an", "object"]}, "invalid_step"),
        # A proposal no step answered: its candidates are not candidates.
        ({"step": "decide", "job": JOB, "proposal": {"candidates": [{"a": 1}]}}, "invalid_step"),
        (
            {"step": "apply", "job": JOB, "proposal": {}, "decision": {"decisions": [{"x": 1}]}},
            "invalid_step",
        ),
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
