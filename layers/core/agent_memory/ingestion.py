"""The SQS side of ingestion: one message body is one ingestion message, with its tenant."""

from __future__ import annotations

import json
import logging
from typing import Any

from .domain.errors import InvalidRequest
from .domain.services.ingest import IngestService

logger = logging.getLogger(__name__)


def apply_record(ingest: IngestService, record: Any) -> str:
    """Apply one SQS record. The queue is the service's own (IAM-restricted), so the tenant
    travels in the body: {"tenant": ..., "op": ..., ...}. A malformed body raises, so the batch
    reports it as failed; after the queue's retries it lands in the dead-letter queue."""
    body = record.body if hasattr(record, "body") else record["body"]
    try:
        message = json.loads(body)
    except ValueError as exc:
        raise InvalidRequest("the message body is not JSON", code="invalid_message") from exc
    if not isinstance(message, dict) or not isinstance(message.get("tenant"), str):
        raise InvalidRequest("the message needs a tenant", code="invalid_message")
    tenant = message.pop("tenant")
    outcome = ingest.apply(tenant, message)
    logger.info("ingested", extra={"op": message.get("op"), "outcome": outcome})
    return outcome
