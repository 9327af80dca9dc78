"""The embedded event bus: in-process subscribers (served as SSE) and an optional webhook."""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...domain.kernel.events import Event, EventPublisher
from .webhook_delivery import WebhookSender

logger = logging.getLogger(__name__)


@dataclass
class Subscription:
    tenant: str
    agent_id: str
    session_id: str | None
    queue: queue.Queue[tuple[int, Event]] = field(default_factory=lambda: queue.Queue(1000))
    # Set when an event could not be queued (the client reads too slowly): its stream ends, so
    # the client reconnects with Last-Event-ID and is sent what it missed, rather than a gap.
    overflowed: bool = False

    def wants(self, event: Event) -> bool:
        if (event.tenant, event.agent_id) != (self.tenant, self.agent_id):
            return False
        # A session's stream carries memory.updated; the agent's stream agent.memory_updated.
        if self.session_id is None:
            return event.type == "agent.memory_updated"
        return event.type == "memory.updated" and event.session_id == self.session_id


class InProcessBus(EventPublisher):
    """Keeps the last `history` events so a reconnecting client resumes from Last-Event-ID."""

    def __init__(
        self,
        webhook_url: str | None = None,
        history: int = 1000,
        webhook_key: bytes | None = None,
    ) -> None:
        self._lock = threading.Lock()
        # Ids go on from the time this process started (microseconds), so a client resuming
        # with an id from before a restart gets every event kept since, not none.
        self._ids = itertools.count(time.time_ns() // 1_000)
        self._recent: deque[tuple[int, Event]] = deque(maxlen=history)
        self._subscribers: list[Subscription] = []
        # Settings refuse a webhook URL without a secret: every delivery is signed.
        self.webhook = WebhookSender(webhook_url, webhook_key) if webhook_url else None

    def publish(self, events: Sequence[Event]) -> None:
        with self._lock:
            numbered = [(next(self._ids), event) for event in events]
            self._recent.extend(numbered)
            for subscription in self._subscribers:
                if subscription.overflowed:
                    continue  # it ends at the gap; what follows is replayed when it resumes
                for item in numbered:
                    if subscription.wants(item[1]):
                        try:
                            subscription.queue.put_nowait(item)
                        except queue.Full:
                            subscription.overflowed = True
                            logger.warning(
                                "slow event subscriber dropped an event",
                                extra={"agent_id": subscription.agent_id},
                            )
        if self.webhook is not None:
            self.webhook.send(events)

    def subscribe(
        self, tenant: str, agent_id: str, session_id: str | None, last_id: int | None = None
    ) -> Subscription:
        subscription = Subscription(tenant, agent_id, session_id)
        with self._lock:
            if last_id is not None:
                for item in self._recent:
                    if item[0] > last_id and subscription.wants(item[1]):
                        subscription.queue.put_nowait(item)
            self._subscribers.append(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            if subscription in self._subscribers:
                self._subscribers.remove(subscription)
