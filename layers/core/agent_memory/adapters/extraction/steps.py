"""The extraction state machine's task events (functions/extraction/statemachine.asl.json) ->
ExtractionService calls.

The event is Step Functions' shape, `{"step", "job", "proposal"?, "decision"?, "error"?}` (the
last the Catch's `{"Error", "Cause"}`); it is read here so the service takes the job and each
step's inputs as arguments. A step or job it cannot read is InvalidRequest, which the state
machine does not retry (and which changes nothing)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ...domain.extraction.job import ExtractionJob
from ...domain.extraction.model import Decisions, Proposal
from ...domain.extraction.service import ExtractionService
from ...domain.kernel.errors import InvalidRequest
from ...domain.kernel.models import Extraction

STEPS = ("begin", "propose", "decide", "apply", "fail")


def run_step(extraction: ExtractionService, event: dict[str, Any]) -> dict[str, Any]:
    """Run the one step the task's event names and answer the task's payload."""
    job = ExtractionJob.from_dict(event.get("job"))
    step = event.get("step")
    if step not in STEPS:
        raise InvalidRequest(f"unknown extraction step {step!r}", code="invalid_step")
    if step == "begin":
        return {"done": extraction.begin(job)}
    if step == "propose":
        return extraction.propose(job).model_dump(mode="json")
    if step == "decide":
        return extraction.decide(job, _input(event, "proposal", Proposal)).model_dump(mode="json")
    if step == "apply":
        proposal = _input(event, "proposal", Proposal)
        return _state(extraction.apply(job, proposal, _input(event, "decision", Decisions)))
    error = _object(event, "error")
    return _state(extraction.fail(job, f"{error.get('Error', 'Error')}: {error.get('Cause', '')}"))


def _state(review: Extraction | None) -> dict[str, Any]:
    # The review as the state machine passes it on: the turn's camelCase JSON ({} when gone).
    return review.model_dump(mode="json", by_alias=True) if review is not None else {}


Input = TypeVar("Input", bound=BaseModel)


def _input(event: dict[str, Any], name: str, model: type[Input]) -> Input:
    """A step's input as the step before it answered it (a proposal, a decision)."""
    try:
        return model.model_validate(_object(event, name))
    except ValidationError as exc:
        raise InvalidRequest(
            f"the step's {name} is not one a step answered: {exc.errors(include_url=False)[0]['msg']}",
            code="invalid_step",
        ) from exc


def _object(event: dict[str, Any], name: str) -> dict[str, Any]:
    # A missing (or null) input is an empty one, as the state machine passes none before the
    # step that makes it; anything but an object is a malformed event.
    value = event.get(name) or {}
    if not isinstance(value, dict):
        raise InvalidRequest(f"the step's {name} is an object", code="invalid_step")
    return value
