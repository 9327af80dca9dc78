"""Dispatcher function: the table's stream -> extraction executions (the outbox; see
agent_memory.adapters.extraction.dispatch). Wired by cloud_workers.build_dispatcher."""

from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.adapters.observability import lambda_logger, traced
from agent_memory.adapters.snapstart import register_snapstart_hooks
from agent_memory.cloud_workers import build_dispatcher
from agent_memory.settings import Settings

logger = lambda_logger()  # every module's logs, as this logger's JSON
settings = Settings()
dispatcher = build_dispatcher(settings)  # parsed and wired at cold start: bad config fails here
register_snapstart_hooks()  # SnapStart: restored environments renew clients and randomness


@logger.inject_lambda_context
def handle(event: dict, context: LambdaContext) -> dict:
    return dispatcher.process(event, context)


lambda_handler = traced(handle, settings.tracing)
