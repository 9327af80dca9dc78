"""Consolidation function: started by an EventBridge Scheduler schedule (template.yaml), it
consolidates once each agent whose harness.memory.consolidation.every has come round
(agent_memory.domain.extraction.consolidation_schedule) and returns the ids of the runs made.
One agent's failure is logged and does not stop the others; an agent missed because the
invocation ran out of time is still due at the next one."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.adapters.observability import lambda_logger, traced
from agent_memory.adapters.snapstart import register_snapstart_hooks
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings

logger = lambda_logger()  # every module's logs, as this logger's JSON
settings = Settings()
services = build_services(settings)  # built at cold start: bad config fails here
register_snapstart_hooks()  # SnapStart: restored environments renew clients and randomness
if services.consolidations is None:
    raise RuntimeError("the store lists no scheduled consolidations (AGENT_MEMORY_STORE)")
# Its run_due only: no thread is started here (one would freeze between invocations).
consolidations = services.consolidations


@logger.inject_lambda_context
def handle(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    run_ids = consolidations.run_due()
    logger.info("scheduled consolidations done", extra={"runs": len(run_ids)})
    return {"runIds": run_ids}


lambda_handler = traced(handle, settings.tracing)
