"""Webhook deliveries from a bounded queue, by a small pool of threads, with retries.

A delivery that fails for a reason that may pass (no connection, a timeout, a 5xx, 408 or 429)
is sent again after 1, 2, 4, 8 and 16 seconds (a 429's or 503's `Retry-After` when it says
longer, up to a minute), under the same `webhook-id` so a receiver that got it once can tell;
each attempt is signed with its own timestamp. Any other answer (a 4xx) is the receiver's
refusal and is not repeated. At most `MAX_PENDING` deliveries wait: past that a new one is
dropped with a warning rather than letting a dead receiver grow the server's memory, and
`DELIVERY_THREADS` threads send them, however many events come (one thread a delivery used to
be started).
"""

from __future__ import annotations

import email.utils
import json
import logging
import queue
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...domain.kernel.events import Event
from ...domain.kernel.ids import new_id
from .webhooks import signature

logger = logging.getLogger(__name__)

MAX_PENDING = 1000
DELIVERY_THREADS = 2
ATTEMPTS = 6
FIRST_WAIT_SECONDS = 1.0
MAX_WAIT_SECONDS = 60.0
TIMEOUT_SECONDS = 5.0
RETRIED_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
# What an attempt came to, beside the seconds to wait before the next one (>= 0).
DELIVERED = -1.0
REFUSED = -2.0


class InvalidWebhookUrl(ValueError):
    pass


def check_url(url: str) -> str:
    """Only http and https: a webhook is a POST to a receiver, never a file or another scheme."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in {"http", "https"} or not rest.split("/", 1)[0]:
        raise InvalidWebhookUrl(
            f"the webhook URL must be http:// or https:// with a host, not {url[:80]!r}"
        )
    return url


@dataclass(frozen=True)
class Delivery:
    delivery_id: str
    body: bytes


class WebhookSender:
    """Sends each batch of events as one signed POST; `sleep` and `send` are replaced in tests."""

    def __init__(
        self,
        url: str,
        key: bytes | None,
        *,
        threads: int = DELIVERY_THREADS,
        max_pending: int = MAX_PENDING,
        first_wait: float = FIRST_WAIT_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._url = check_url(url)
        self._key = key
        self._first_wait = first_wait
        self._sleep = sleep
        self._pending: queue.Queue[Delivery] = queue.Queue(max_pending)
        self.delivered = 0
        self.given_up = 0
        self.dropped = 0
        for n in range(threads):
            threading.Thread(target=self._work, name=f"webhook-{n}", daemon=True).start()

    def send(self, events: Sequence[Event]) -> None:
        # The tenant too: one server may serve several, each with an agent of the same id.
        body = json.dumps([{"type": e.type, "tenant": e.tenant, **e.body()} for e in events])
        try:
            self._pending.put_nowait(Delivery(new_id("msg"), body.encode()))
        except queue.Full:
            self.dropped += 1
            logger.warning("webhook queue full: delivery dropped", extra={"events": len(events)})

    def join(self) -> None:
        """Wait until every delivery queued so far is delivered or given up (tests, shutdown)."""
        self._pending.join()

    def _work(self) -> None:
        while True:
            delivery = self._pending.get()
            try:
                self.deliver(delivery)
            except Exception:  # noqa: BLE001 - a delivery never takes its thread down
                logger.exception("webhook delivery failed unexpectedly")
            finally:
                self._pending.task_done()

    def deliver(self, delivery: Delivery) -> bool:
        """Send until delivered, refused, or out of attempts; whether it was delivered."""
        wait = self._first_wait
        for attempt in range(1, ATTEMPTS + 1):
            outcome = self._attempt(delivery)
            if outcome == DELIVERED:
                self.delivered += 1
                return True
            if outcome == REFUSED:
                self.given_up += 1
                return False
            if attempt < ATTEMPTS:
                self._sleep(min(max(wait, outcome), MAX_WAIT_SECONDS))
                wait *= 2
        self.given_up += 1
        logger.warning(
            "webhook delivery given up",
            extra={"delivery": delivery.delivery_id, "attempts": ATTEMPTS},
        )
        return False

    def _attempt(self, delivery: Delivery) -> float:
        """DELIVERED, REFUSED (not to be repeated), or the seconds the receiver asked to wait
        before the next attempt (0 when it said nothing)."""
        headers = {"Content-Type": "application/json", "webhook-id": delivery.delivery_id}
        if self._key is not None:
            stamp = int(time.time())
            headers["webhook-timestamp"] = str(stamp)
            headers["webhook-signature"] = signature(
                self._key, delivery.delivery_id, stamp, delivery.body
            )
        request = urllib.request.Request(
            self._url, data=delivery.body, method="POST", headers=headers
        )
        try:
            urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS).close()
        except urllib.error.HTTPError as exc:
            if exc.code in RETRIED_STATUSES:
                return retry_after(exc.headers.get("Retry-After"))
            logger.warning(
                "webhook receiver refused a delivery",
                extra={"delivery": delivery.delivery_id, "status": exc.code},
            )
            return REFUSED
        except OSError as exc:
            logger.info("webhook attempt failed", extra={"error": str(exc)})
            return 0.0
        return DELIVERED


def retry_after(value: str | None) -> float:
    """Seconds a `Retry-After` asks for (a number or an HTTP date); 0 when absent or unreadable."""
    if not value:
        return 0.0
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 0.0
    return max(0.0, when.timestamp() - time.time())
