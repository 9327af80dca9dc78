"""The SQS side of ingestion: one message body is one ingestion message, with its tenant.

The queue is FIFO, a message group a session: a session's begin, events and commit are applied
in the order they were sent. A failed message fails the rest of its group in the batch (they
come back after it, in order); other sessions' messages go on."""

from __future__ import annotations

import json
import logging
from typing import Any

from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor, process_partial_response

from ...domain.audit.service import AuditService
from ...domain.kernel.auth import Principal
from ...domain.kernel.errors import InvalidRequest
from ...domain.sessions.ingest import IngestService

# Who the audit trail names for a change that came through the service's own queue.
QUEUE_ACTOR = "ingest-queue"

logger = logging.getLogger(__name__)


def apply_record(ingest: IngestService, record: Any, audit: AuditService | None = None) -> str:
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
    if audit is not None and outcome == "applied":
        _audit(audit, tenant, message)
    return outcome


def _audit(audit: AuditService, tenant: str, message: dict[str, Any]) -> None:
    """A change the queue applied joins the tenant's audit trail as the API's do (a message
    applied again changes nothing and is not audited twice). Written after the change: a store
    failing here leaves the change made, and says so in the log."""
    op = str(message.get("op"))
    target = f"sessions/{message.get('session')}"
    if message.get("turn"):
        target += f"/turns/{message.get('turn')}"
    who = Principal(tenant=tenant, subject=QUEUE_ACTOR, actor=QUEUE_ACTOR)
    try:
        audit.record(who, "SQS", f"ingest {op}", str(message.get("agent")), target, 200)
    except Exception:  # noqa: BLE001 - the change stands: say so loudly, do not fail the message
        logger.exception("audit entry not written", extra={"op": op})


def process_batch(
    ingest: IngestService,
    event: dict[str, Any],
    context: Any = None,
    audit: AuditService | None = None,
) -> dict[str, Any]:
    """A batch of the FIFO queue: `batchItemFailures` names what failed and what it held back."""
    processor = SqsFifoPartialProcessor(skip_group_on_error=True)
    response = process_partial_response(
        event=event,
        record_handler=lambda record: apply_record(ingest, record, audit),
        processor=processor,
        context=context,
    )
    return dict(response)
