"""`GET /v1/agents/{agentId}/-/events`: memory events as Server-Sent Events (embedded shape).

The agent's stream carries `agent.memory_updated`; with `?sessionId=` the session's stream
carries `memory.updated`. A reconnecting client sends Last-Event-ID and gets what it missed
(from the last thousand events). The cloud shape publishes the same events to EventBridge.

A stream lives only as long as its token: the token is checked again before every event and
every half second while the stream waits, and once it is revoked or expired the stream sends a
last `stream.closed` event (`{"reason": "token_invalid"}`) and ends; the client's reconnect then
gets 401. So a stream outlives its token by at most TOKEN_CHECK_SECONDS.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs

from ..adapters.events.local_bus import InProcessBus
from ..api.paths import AGENTS_PREFIX, SEPARATOR
from ..domain.kernel.auth import Principal
from ..domain.kernel.errors import DomainError
from ..domain.kernel.ids import validate_agent_id
from ..domain.sessions.service import SessionService

logger = logging.getLogger(__name__)
StartResponse = Callable[[str, list[tuple[str, str]]], Any]
# A client gone is seen when a write to it fails: often enough to free its slot soon.
KEEPALIVE_SECONDS = 5.0
# How often a waiting stream asks whether its token still opens anything (a stat of the tokens
# file, and a read of it when it changed).
TOKEN_CHECK_SECONDS = 0.5
CLOSED_EVENT = b'event: stream.closed\ndata: {"reason": "token_invalid"}\n\n'


class EventStreams:
    """At most `max_streams` streams at once, and `per_tenant` of them for any one tenant, so
    one tenant cannot take every slot from the others."""

    def __init__(
        self,
        bus: InProcessBus,
        sessions: SessionService,
        max_streams: int,
        per_tenant: int | None = None,
    ) -> None:
        self._bus = bus
        self._sessions = sessions
        self._slots = threading.BoundedSemaphore(max_streams)
        self._per_tenant = per_tenant or max_streams
        self._held: dict[str, int] = {}
        self._held_lock = threading.Lock()
        self.closing = threading.Event()

    @staticmethod
    def matches(environ: dict[str, Any]) -> bool:
        path = environ.get("PATH_INFO") or ""
        return (
            environ.get("REQUEST_METHOD") == "GET"
            and path.startswith(AGENTS_PREFIX)
            and path.endswith(SEPARATOR + "events")
        )

    def __call__(
        self,
        environ: dict[str, Any],
        start_response: StartResponse,
        who: Principal,
        still_valid: Callable[[], bool] = lambda: True,
    ) -> Iterator[bytes] | list[bytes]:
        """The stream of the agent (or session) in the path; `still_valid` says whether the
        caller's token still opens anything (the stream ends once it does not)."""
        from .gateway import error

        path = environ["PATH_INFO"]
        agent_id = path[len(AGENTS_PREFIX) : -len(SEPARATOR + "events")]
        session_id = parse_qs(environ.get("QUERY_STRING", "")).get("sessionId", [None])[0]
        tenant = who.tenant
        try:
            self._sessions.agent(tenant, validate_agent_id(agent_id))
            if session_id is not None:
                # A session's stream is for who may read the session (its own subject's).
                self._sessions.reach(who, agent_id, session_id)
            else:
                who.can_read_all_sessions()  # the agent's stream tells of every session
        except DomainError as exc:
            return error(start_response, exc.status, exc.code, exc.message)
        last = environ.get("HTTP_LAST_EVENT_ID")
        last_id = int(last) if last and re.fullmatch(r"[0-9]{1,19}", last) else None
        if not self._take_slot(tenant):
            return error(
                start_response,
                503,
                "too_many_streams",
                "every event stream slot of this tenant (or of the server) is taken; "
                "try again later",
            )
        subscription = self._bus.subscribe(tenant, agent_id, session_id, last_id)
        start_response(
            "200 OK",
            [
                ("Content-Type", "text/event-stream"),
                ("Cache-Control", "no-cache"),
                ("X-Accel-Buffering", "no"),
            ],
        )
        return self._stream(subscription, tenant, still_valid)

    def _take_slot(self, tenant: str) -> bool:
        with self._held_lock:
            if self._held.get(tenant, 0) >= self._per_tenant:
                return False
            if not self._slots.acquire(blocking=False):
                return False
            self._held[tenant] = self._held.get(tenant, 0) + 1
            return True

    def _give_slot(self, tenant: str) -> None:
        with self._held_lock:
            self._held[tenant] -= 1
            if not self._held[tenant]:
                del self._held[tenant]
            self._slots.release()

    def _stream(
        self, subscription: Any, tenant: str, still_valid: Callable[[], bool]
    ) -> Iterator[bytes]:
        try:
            yield b": connected\n\n"
            idle = 0.0
            while not self.closing.is_set():
                if subscription.overflowed and subscription.queue.empty():
                    return  # the client reconnects and resumes from the last id it got
                try:
                    event_id, event = subscription.queue.get(timeout=TOKEN_CHECK_SECONDS)
                except queue.Empty:
                    if not still_valid():
                        logger.info("event stream closed", extra={"reason": "token_invalid"})
                        yield CLOSED_EVENT
                        return
                    idle += TOKEN_CHECK_SECONDS
                    if idle >= KEEPALIVE_SECONDS:
                        idle = 0.0
                        yield b": keepalive\n\n"
                    continue
                if not still_valid():
                    # Nothing more is told to a token that no longer opens anything.
                    logger.info("event stream closed", extra={"reason": "token_invalid"})
                    yield CLOSED_EVENT
                    return
                idle = 0.0
                data = json.dumps({"type": event.type, **event.body()})
                yield f"id: {event_id}\nevent: {event.type}\ndata: {data}\n\n".encode()
        finally:
            self._bus.unsubscribe(subscription)
            self._give_slot(tenant)
