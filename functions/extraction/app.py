"""Extraction function: the tasks of the extraction state machine (statemachine.asl.json).

Each invocation runs one step of agent_memory.domain.services.extraction on the turn named in
`job`: begin, propose, decide, apply, or fail (the Catch's record of a review that failed for
good). Errors propagate, so the state machine's Retry and Catch see them.
"""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.bootstrap import build_services
from agent_memory.domain.extraction.job import ExtractionJob
from agent_memory.domain.services.extraction import ExtractionService
from agent_memory.settings import Settings

logger = Logger()
services = build_services(Settings())  # built at cold start: bad config fails here


def run_step(extraction: ExtractionService, event: dict[str, Any]) -> dict[str, Any]:
    """One step of a review, as the state machine passes it."""
    job = ExtractionJob.from_dict(event.get("job"))
    step = event.get("step")
    if step == "begin":
        return extraction.begin(job)
    if step == "propose":
        return extraction.propose(job)
    if step == "decide":
        return extraction.decide(job, event.get("proposal") or {})
    if step == "apply":
        return extraction.apply(job, event.get("proposal") or {}, event.get("decision") or {})
    if step == "fail":
        error = event.get("error") or {}
        return extraction.fail(job, f"{error.get('Error', 'Error')}: {error.get('Cause', '')}")
    raise ValueError(f"unknown extraction step {step!r}")


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    assert services.extraction is not None, "AGENT_MEMORY_EXTRACTION_MODEL is none"
    logger.append_keys(turn_id=(event.get("job") or {}).get("turnId"), step=event.get("step"))
    return run_step(services.extraction, event)
