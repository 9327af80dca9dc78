"""Extraction function: the tasks of the extraction state machine (statemachine.asl.json).

Each invocation runs one step of the turn's review named in the event (begin, propose, decide,
apply, or fail: the Catch's record of a review that failed for good). The event's shape is read
by agent_memory.adapters.extraction.steps; the steps are agent_memory.domain.extraction.service.
Errors propagate so the state machine's Retry and Catch see them.
"""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.adapters.extraction.steps import run_step
from agent_memory.adapters.observability import lambda_logger, traced
from agent_memory.adapters.snapstart import register_snapstart_hooks
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings

logger = lambda_logger()  # every module's logs, as this logger's JSON
settings = Settings()
services = build_services(settings)  # built at cold start: bad config fails here
register_snapstart_hooks()  # SnapStart: restored environments renew clients and randomness
if services.extraction is None:
    raise RuntimeError("the extraction function needs a model (AGENT_MEMORY_EXTRACTION_MODEL)")
extraction = services.extraction


@logger.inject_lambda_context
def handle(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    logger.append_keys(turn_id=(event.get("job") or {}).get("turnId"), step=event.get("step"))
    return run_step(extraction, event)


lambda_handler = traced(handle, settings.tracing)
