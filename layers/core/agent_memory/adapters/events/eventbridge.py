"""EventPublisher on Amazon EventBridge: PutEvents to the service's bus."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from ...domain.kernel.events import Event, EventPublisher
from ..aws import LazyClient

logger = logging.getLogger(__name__)
SOURCE = "agent-memory"
BATCH = 10  # PutEvents takes at most ten entries


class EventBridgePublisher(EventPublisher):
    def __init__(self, bus_name: str, client: Any = None, region: str | None = None) -> None:
        # Made on first publish: a cold start serving reads never pays for boto3 and the
        # events service model (~100 ms).
        self._client = LazyClient("events", region, client)
        self._bus = bus_name

    def publish(self, events: Sequence[Event]) -> None:
        entries = [
            {
                "EventBusName": self._bus,
                "Source": SOURCE,
                "DetailType": event.type,
                # Rules route on tenant and agent, so both travel in the detail.
                "Detail": json.dumps({"tenant": event.tenant, **event.body()}),
            }
            for event in events
        ]
        for start in range(0, len(entries), BATCH):
            batch = entries[start : start + BATCH]
            try:
                result = self._client.get().put_events(Entries=batch)
            except (BotoCoreError, ClientError) as exc:
                logger.error("events not delivered", extra={"count": len(batch), "error": str(exc)})
                continue
            if result.get("FailedEntryCount"):
                failed = [e for e in result["Entries"] if e.get("ErrorCode")]
                logger.error("some events not delivered", extra={"failed": failed})
