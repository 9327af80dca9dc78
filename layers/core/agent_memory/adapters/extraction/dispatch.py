"""The table's stream -> a review's execution: the outbox of post-turn extraction.

A commit queues its turn's review in the commit's own transaction and then starts the
execution itself. If the function dies between the two, or the start fails, the review would
wait forever; the turn item's change on the stream starts it again. A second start of the same
turn is a no-op (the execution is named after the turn), so every queued review is started at
least once and run once.
"""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
    DynamoDBRecordEventName,
)

from ...domain.extraction.job import ExtractionJob
from ...domain.extraction.ports import ExtractionStarter
from ..dynamodb.keys import TURN

QUEUED = "queued"


def queued_job(record: DynamoDBRecord) -> ExtractionJob | None:
    """The review a turn item's change queued: a turn whose review became `queued`."""
    stream = record.dynamodb
    if stream is None or record.event_name is DynamoDBRecordEventName.REMOVE:
        return None
    if not str(stream.keys.get("sk", "")).startswith(TURN):
        return None
    new = stream.new_image
    if new.get("extraction_status") != QUEUED:
        return None
    if (stream.old_image or {}).get("extraction_status") == QUEUED:
        return None  # already queued before this change: started then
    runs = json.loads(str(new.get("extraction") or "{}")).get("runs", 0)
    return ExtractionJob(
        str(new["tenant"]),
        str(new["agent_id"]),
        str(new["session_id"]),
        str(new["turn_id"]),
        int(runs),
        str(new.get("created_at") or ""),
    )


class Dispatcher:
    def __init__(self, starter: ExtractionStarter) -> None:
        self._starter = starter

    def process(self, event: dict[str, Any], context: Any = None) -> dict[str, Any]:
        processor = BatchProcessor(event_type=EventType.DynamoDBStreams)

        def handle(record: DynamoDBRecord) -> None:
            job = queued_job(record)
            if job is not None:
                self._starter.start(job)

        return dict(
            process_partial_response(
                event=event, record_handler=handle, processor=processor, context=context
            )
        )
