"""The embedded server's event bus: resuming after a restart, and what a webhook is told."""

import json
import time
from datetime import UTC, datetime

import pytest

from agent_memory.adapters.events.local_bus import InProcessBus
from agent_memory.adapters.events.webhooks import secret_key, signature
from agent_memory.domain.kernel.events import Change, Event

pytestmark = pytest.mark.unit


def event(tenant: str, n: int) -> Event:
    change = Change(id=f"rec_{n}", operation="create", version=1)
    return Event(
        type="agent.memory_updated",
        tenant=tenant,
        agent_id="a",
        changes=[change],
        at=datetime.now(UTC),
    )


def test_a_client_resuming_after_a_restart_gets_what_was_kept_since():
    # Ids once started at 1 in every process: a client that had seen id 50 before a restart
    # resumed with 50 and was sent nothing of the new process's first 50 events.
    before = InProcessBus()
    seen = before.subscribe("t", "a", None)
    for n in range(50):
        before.publish([event("t", n)])
    last_seen = max(seen.queue.get_nowait()[0] for _ in range(50))
    after = InProcessBus()
    for n in range(10):
        after.publish([event("t", 100 + n)])
    assert after.subscribe("t", "a", None, last_id=last_seen).queue.qsize() == 10


def test_a_webhook_is_told_the_tenant_in_a_signed_delivery(monkeypatch):
    sent = []

    class Response:
        def close(self):
            pass

    def capture(request, timeout):
        sent.append((json.loads(request.data), request.data, dict(request.header_items())))
        return Response()

    monkeypatch.setattr("urllib.request.urlopen", capture)
    key = secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    bus = InProcessBus(webhook_url="http://127.0.0.1:9/hook", webhook_key=key)
    bus._post([event("globex", 1)])
    body, raw, headers = sent[0]
    assert body[0]["tenant"] == "globex" and body[0]["type"] == "agent.memory_updated"
    # What a receiver checks (urllib capitalises header names).
    delivery, stamp = headers["Webhook-id"], int(headers["Webhook-timestamp"])
    assert abs(stamp - time.time()) < 60
    assert headers["Webhook-signature"] == signature(key, delivery, stamp, raw)


def test_the_signature_is_the_standard_webhooks_one():
    # The test vector of the Standard Webhooks specification's libraries.
    key = secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    body = b'{"test": 2432232314}'
    assert signature(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body) == (
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )
    assert signature(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265331, body) != (
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )


def test_a_subscriber_too_slow_to_keep_up_is_told_to_reconnect():
    # Past 1,000 waiting events one is dropped: the subscription says so, and its stream ends
    # once what it holds is sent, so the client resumes from its last id (replayed from the
    # kept events) instead of silently missing one.
    bus = InProcessBus()
    slow = bus.subscribe("t", "a", None)
    for n in range(1001):
        bus.publish([event("t", n)])
    assert slow.overflowed and slow.queue.qsize() == 1000
    got = [slow.queue.get_nowait()[0] for _ in range(1000)]
    # Nothing after the gap reaches it (its last id would pass the dropped one).
    bus.publish([event("t", 2000)])
    assert slow.queue.empty()
    resumed = bus.subscribe("t", "a", None, last_id=got[-1])
    assert resumed.queue.qsize() == 2 and not resumed.overflowed
