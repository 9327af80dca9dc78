"""Ingest function: a harness's appends and commits as SQS messages, applied idempotently."""

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.bootstrap import build_services
from agent_memory.ingestion import apply_record
from agent_memory.settings import Settings

logger = Logger()
services = build_services(Settings())  # built at cold start: bad config fails here
processor = BatchProcessor(event_type=EventType.SQS)


@logger.inject_lambda_context
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return process_partial_response(
        event=event,
        record_handler=lambda record: apply_record(services.ingest, record),
        processor=processor,
        context=context,
    )
