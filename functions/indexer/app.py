"""Indexer function: the table's stream -> the search index (record and file heads, history
events): OpenSearch Serverless, or S3 Vectors and word postings (AGENT_MEMORY_SEARCH_BACKEND).
Wired by cloud_workers.build_indexer; the logic is agent_memory.adapters.dynamodb.stream_indexer."""

from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.adapters.observability import lambda_logger, traced
from agent_memory.adapters.snapstart import register_snapstart_hooks
from agent_memory.cloud_workers import build_indexer
from agent_memory.settings import Settings

logger = lambda_logger()  # every module's logs, as this logger's JSON
settings = Settings()
indexer = build_indexer(settings)  # parsed and wired at cold start: bad config fails here
register_snapstart_hooks()  # SnapStart: restored environments renew clients and randomness


@logger.inject_lambda_context
def handle(event: dict, context: LambdaContext) -> dict:
    return indexer.process(event, context)


lambda_handler = traced(handle, settings.tracing)
