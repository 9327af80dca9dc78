"""Consolidation function: the tasks of the consolidation state machine (statemachine.asl.json),
which an EventBridge Scheduler schedule starts every ConsolidationCheckRate (template.yaml).

Each invocation runs one step named in the event: `expire` (a bounded batch of the expiry sweep:
records whose expiresAt has passed get their `expire` version), `due` (a page of the agents whose
harness.memory.consolidation.every has come round), or `consolidate` (one agent's run). The
event's shape is read by agent_memory.adapters.consolidation_steps. Errors propagate so the state
machine's Retry and Catch see them: one agent's failure is caught in its own Map iteration and
does not stop the others."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.adapters.consolidation_steps import ConsolidationSteps
from agent_memory.adapters.observability import lambda_logger, traced
from agent_memory.adapters.snapstart import register_snapstart_hooks
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings

logger = lambda_logger()  # every module's logs, as this logger's JSON
settings = Settings()
services = build_services(settings)  # built at cold start: bad config fails here
register_snapstart_hooks()  # SnapStart: restored environments renew clients and randomness
if services.consolidation is None:
    raise RuntimeError("the consolidation function needs the consolidation service")
# Bad config (a store that lists no schedule or expiring records) fails here too.
steps = ConsolidationSteps.of(
    services.store, services.consolidation, services.events, services.audit
)


@logger.inject_lambda_context
def handle(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    logger.append_keys(step=event.get("step"), agent_id=event.get("agentId"))
    return steps.run(event)


lambda_handler = traced(handle, settings.tracing)
