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


class Receiver:
    """A local HTTP receiver that answers each delivery with the next of `statuses`."""

    def __init__(self, statuses, headers=None):
        import http.server
        import threading

        self.statuses, self.got = list(statuses), []
        owner, extra = self, headers or {}

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                owner.got.append((body, self.headers))
                status = owner.statuses.pop(0) if owner.statuses else 200
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self):
        self.server.shutdown()


def sender(url, key=None, **kw):
    from agent_memory.adapters.events.webhook_delivery import WebhookSender

    waits = []
    return WebhookSender(url, key, sleep=waits.append, **kw), waits


def test_a_webhook_is_told_the_tenant_in_a_signed_delivery():
    receiver = Receiver([200])
    key = secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    bus = InProcessBus(webhook_url=receiver.url, webhook_key=key)
    bus.publish([event("globex", 1)])
    bus.webhook.join()
    receiver.close()
    [(raw, headers)] = receiver.got
    body = json.loads(raw)
    assert body[0]["tenant"] == "globex" and body[0]["type"] == "agent.memory_updated"
    # What a receiver checks.
    delivery, stamp = headers["webhook-id"], int(headers["webhook-timestamp"])
    assert abs(stamp - time.time()) < 60
    assert headers["webhook-signature"] == signature(key, delivery, stamp, raw)


def test_a_failed_delivery_is_sent_again_with_back_off_under_the_same_id():
    # Given a receiver that fails twice (503, then 500) before it takes the delivery
    receiver = Receiver([503, 500, 200])
    key = secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    send, waits = sender(receiver.url, key)
    send.send([event("t", 1)])
    send.join()
    receiver.close()
    # Then it got it three times, each signed, all under one webhook-id, after 1 s and 2 s
    ids = {h["webhook-id"] for _, h in receiver.got}
    assert len(receiver.got) == 3 and len(ids) == 1
    for raw, h in receiver.got:
        assert h["webhook-signature"] == signature(
            key, h["webhook-id"], int(h["webhook-timestamp"]), raw
        )
    assert waits == [1.0, 2.0] and (send.delivered, send.given_up) == (1, 0)


def test_a_refusal_is_not_repeated_and_a_retry_after_is_honoured():
    # A 400 is the receiver's answer: sent once, never again
    refusing = Receiver([400])
    send, waits = sender(refusing.url)
    send.send([event("t", 1)])
    send.join()
    refusing.close()
    assert len(refusing.got) == 1 and waits == [] and send.given_up == 1
    # A 429 asking for 7 seconds waits 7 (more than the 1 s back-off), then delivers
    busy = Receiver([429, 200], headers={"Retry-After": "7"})
    send, waits = sender(busy.url)
    send.send([event("t", 1)])
    send.join()
    busy.close()
    assert len(busy.got) == 2 and waits == [7.0] and send.delivered == 1


def test_an_unreachable_receiver_is_given_up_after_six_attempts():
    # Port 9 (discard) refuses the connection on loopback
    send, waits = sender("http://127.0.0.1:9/hook")
    send.send([event("t", 1)])
    send.join()
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0] and send.given_up == 1


def test_the_queue_is_bounded_and_the_threads_are_few():
    import threading

    # Given no thread sending (0 threads) and room for 2 deliveries
    before = threading.active_count()
    send, _ = sender("http://127.0.0.1:9/hook", threads=0, max_pending=2)
    for n in range(5):
        send.send([event("t", n)])
    # Then 3 were dropped, and publishing started no thread
    assert send.dropped == 3 and threading.active_count() == before


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/x", "gopher://h/", "http://", "example.com"]
)
def test_a_webhook_url_that_is_not_http_is_refused(url):
    from agent_memory.adapters.events.webhook_delivery import InvalidWebhookUrl, WebhookSender

    with pytest.raises(InvalidWebhookUrl, match="http:// or https://"):
        WebhookSender(url, None)


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
