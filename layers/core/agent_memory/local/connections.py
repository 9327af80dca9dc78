"""Which connections the embedded server keeps when they are too many, and how long a request
may take to arrive.

A connection is either being served (a request read whole, answered on a worker thread, its
answer still going out) or waiting: idle between requests, or part-way through sending one.
Only waiting connections cost nothing to drop, and only they can be held by a client that does
nothing (idle or slow-header sockets). So:

- a request must send its headers within `header_seconds` of its first byte and its whole body
  within `body_seconds`; past either the connection is closed;
- when a new connection would pass the server's cap, or its client address's, the connection
  that has waited longest (of that address, or of any for the server's cap) is closed to make
  room, and the new one is refused only when none is waiting.

Every local process connects from 127.0.0.1, so a cap per address alone would let one of them
lock out every other by holding its share: here holding connections only gets one's own oldest
dropped when someone else connects, while a client that sends its request at once is served
before it could be dropped.
"""

from __future__ import annotations

import logging
import time
from typing import Any

logger = logging.getLogger(__name__)


class ConnectionGuard:
    """Caps and read deadlines for a waitress server (`install` fits them to one)."""

    def __init__(
        self, max_connections: int, per_client: int, header_seconds: float, body_seconds: float
    ) -> None:
        self.max_connections = max_connections
        self.per_client = per_client
        self.header_seconds = header_seconds
        self.body_seconds = body_seconds

    def install(self, server: Any) -> None:
        """waitress makes each connection with `server.channel_class(server, conn, addr, adj,
        map=...)`, keeps each live one in `server.active_channels`, and calls
        `server.maintenance(now)` every cleanup_interval seconds: the guard takes those over."""
        server.channel_class = self._channel_factory(server.channel_class)
        idle_maintenance = server.maintenance

        def maintenance(now: float) -> None:
            idle_maintenance(now)
            self.close_late(server.active_channels.values(), now)

        server.maintenance = maintenance

    def _channel_factory(self, base: type) -> Any:
        class TimedChannel(base):  # type: ignore[valid-type, misc]
            # When the request being received began (its first byte), None between requests.
            request_began: float | None = None

            def received(self, data: bytes) -> bool:
                if self.request is None and data:
                    self.request_began = time.time()
                done = super().received(data)
                if self.request is None:
                    self.request_began = None  # read whole, or nothing left part-read
                return bool(done)

        guard = self

        def channel(srv: Any, conn: Any, addr: Any, adj: Any, map: Any = None) -> Any:  # noqa: A002
            host = addr[0] if isinstance(addr, tuple) else addr
            if not guard.make_room(list(srv.active_channels.values()), host):
                logger.warning("connection refused", extra={"client": host})
                conn.close()
                return None
            return TimedChannel(srv, conn, addr, adj, map=map)

        return channel

    def make_room(self, channels: list[Any], host: str) -> bool:
        """Whether a new connection from `host` may be kept, closing the longest-waiting
        connection when a cap is reached (False: every one in the way is being served)."""
        live = [ch for ch in channels if _live(ch)]
        mine = [ch for ch in live if _host(ch) == host]
        for held, cap in ((mine, self.per_client), (live, self.max_connections)):
            if len(held) < cap:
                continue
            waiting = [ch for ch in held if _waiting(ch)]
            if not waiting:
                return False
            oldest = min(waiting, key=_waiting_since)
            logger.info(
                "waiting connection closed for a new one",
                extra={"client": _host(oldest), "new_client": host},
            )
            oldest.handle_close()
            live.remove(oldest)
            if oldest in mine:
                mine.remove(oldest)
        return True

    def close_late(self, channels: Any, now: float) -> None:
        """Close each connection whose request has not arrived in time."""
        for ch in list(channels):
            began = getattr(ch, "request_began", None)
            if began is None or ch.requests or ch.will_close or ch.request is None:
                continue
            late = now - began > (
                self.body_seconds if ch.request.headers_finished else self.header_seconds
            )
            if late:
                part = "body" if ch.request.headers_finished else "headers"
                logger.info("slow request closed", extra={"client": _host(ch), "part": part})
                ch.will_close = True


def _host(ch: Any) -> str:
    addr = ch.addr
    return str(addr[0] if isinstance(addr, tuple) else addr)


def _live(ch: Any) -> bool:
    return bool(ch.connected) and not ch.will_close


def _waiting(ch: Any) -> bool:
    """Neither a request in service nor an answer still going out: safe to drop."""
    return not ch.requests and not ch.total_outbufs_len and not ch.close_when_flushed


def _waiting_since(ch: Any) -> float:
    began = getattr(ch, "request_began", None)
    return float(began if began is not None else ch.last_activity)
