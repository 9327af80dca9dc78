"""Dispatcher function: the table's stream -> extraction executions (the outbox; see
agent_memory.adapters.extraction.dispatch)."""

import os

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext

from agent_memory.adapters.extraction.dispatch import Dispatcher
from agent_memory.adapters.extraction.stepfunctions import StepFunctionsStarter

logger = Logger()
dispatcher = Dispatcher(
    StepFunctionsStarter(
        os.environ["AGENT_MEMORY_EXTRACTION_STATE_MACHINE_ARN"],
        region=os.environ.get("AWS_REGION"),
    )
)


@logger.inject_lambda_context
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return dispatcher.process(event, context)
