"""Ingest function: a harness's appends and commits as SQS FIFO messages, applied idempotently
and in each session's order."""

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.bootstrap import build_services
from agent_memory.ingestion import process_batch
from agent_memory.settings import Settings

logger = Logger()
services = build_services(Settings())  # built at cold start: bad config fails here


@logger.inject_lambda_context
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return process_batch(services.ingest, event, context, services.audit)
