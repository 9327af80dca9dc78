"""StepFunctionsStarter: a committed turn's review as a Standard execution of the extraction
state machine (functions/extraction/statemachine.asl.json), named after the turn, so a second
start of the same turn is a no-op (ExecutionAlreadyExists)."""

from __future__ import annotations

import json
import logging
from typing import Any

from ...domain.extraction.job import ExtractionJob
from ...domain.extraction.ports import ExtractionStarter
from ..aws import LazyClient

logger = logging.getLogger(__name__)


class StepFunctionsStarter(ExtractionStarter):
    def __init__(self, state_machine_arn: str, *, region: str | None = None, client: Any = None):
        self.state_machine_arn = state_machine_arn
        self._client = LazyClient("stepfunctions", region, client)

    @property
    def client(self) -> Any:
        return self._client.get()

    def start(self, job: ExtractionJob) -> None:
        try:
            self.client.start_execution(
                stateMachineArn=self.state_machine_arn,
                name=job.name,
                input=json.dumps({"job": job.to_dict()}),
            )
        except self.client.exceptions.ExecutionAlreadyExists:
            logger.info("extraction already started", extra={"turn_id": job.turn_id})
