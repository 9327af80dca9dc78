"""Extraction function: the tasks of the extraction state machine (statemachine.asl.json).

Each invocation runs one step of the turn's review named in the event (begin, propose, decide,
apply, or fail: the Catch's record of a review that failed for good); see
agent_memory.domain.services.extraction. Errors propagate so the state machine's Retry and
Catch see them.
"""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings

logger = Logger()
services = build_services(Settings())  # built at cold start: bad config fails here
if services.extraction is None:
    raise RuntimeError("the extraction function needs a model (AGENT_MEMORY_EXTRACTION_MODEL)")
extraction = services.extraction


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    logger.append_keys(turn_id=(event.get("job") or {}).get("turnId"), step=event.get("step"))
    return extraction.task(event)
