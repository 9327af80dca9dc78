"""API function: every /v1 route behind API Gateway's HTTP API."""

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.adapters.observability import lambda_logger, traced
from agent_memory.adapters.snapstart import register_snapstart_hooks
from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings

logger = lambda_logger()  # every module's logs, as this logger's JSON
settings = Settings()
api = Api(build_services(settings))  # parsed and wired at cold start: bad config fails here
register_snapstart_hooks()  # SnapStart: restored environments renew clients and randomness


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
def handle(event: dict, context: LambdaContext) -> dict:
    return api.handle(event, context)


lambda_handler = traced(handle, settings.tracing)
