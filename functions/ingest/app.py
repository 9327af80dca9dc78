"""Ingest function: a harness's appends and commits as SQS FIFO messages, applied idempotently
and in each session's order."""

from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.adapters.observability import lambda_logger, traced
from agent_memory.adapters.snapstart import register_snapstart_hooks
from agent_memory.adapters.sqs.ingestion import process_batch
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings

logger = lambda_logger()  # every module's logs, as this logger's JSON
settings = Settings()
services = build_services(settings)  # built at cold start: bad config fails here
register_snapstart_hooks()  # SnapStart: restored environments renew clients and randomness


@logger.inject_lambda_context
def handle(event: dict, context: LambdaContext) -> dict:
    return process_batch(services.ingest, event, context, services.audit)


lambda_handler = traced(handle, settings.tracing)
