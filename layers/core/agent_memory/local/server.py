"""`agent-memory serve`: the embedded shape on waitress, a production multi-threaded WSGI server."""

from __future__ import annotations

import errno
import logging
import signal
import socket
import sys
from types import FrameType
from typing import Any

from waitress.server import create_server

from ..adapters.events.local_bus import InProcessBus
from ..adapters.extraction.worker import ExtractionWorker
from ..api.app import Api
from ..bootstrap import build_services
from ..services import Services
from ..settings import Settings
from .connections import ConnectionGuard
from .datadir import make_private
from .datadir_lock import hold_shared
from .fairness import TenantGate
from .gateway import LocalGateway
from .heap import settle_when
from .limits import RateLimiter
from .reindex import repair_index
from .request_log import log_requests_as_json_lines
from .sse import EventStreams
from .tokens import TokenBook

logger = logging.getLogger(__name__)

# Requests without a valid token a client address may make a minute: enough for typos, far
# too few to guess a token.
FAILED_AUTH_PER_MINUTE = 30


class PortUnavailable(Exception):
    """The address to serve on cannot be bound (in use, or not this machine's)."""

    def __init__(self, host: str, port: int, reason: str) -> None:
        super().__init__(f"cannot listen on {host}:{port}: {reason}")


def listen_socket(host: str, port: int) -> socket.socket:
    """A socket bound to host:port, bound before anything else happens so that a port in use
    is reported before the data directory, the database or a token is made."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise PortUnavailable(host, port, str(exc.strerror)) from exc
    sock = socket.socket(family, kind, proto)
    # As waitress does: a restart may bind while the last run's connections are in TIME_WAIT.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        reason = "the port is in use" if exc.errno == errno.EADDRINUSE else exc.strerror
        raise PortUnavailable(host, port, str(reason or exc)) from exc
    return sock


def serve(settings: Settings) -> None:
    """Serve until SIGTERM or SIGINT; requests in flight finish and the store closes cleanly."""
    sock = listen_socket(settings.host, settings.port)
    log_requests_as_json_lines()
    # The directory holds the database and the token hashes: only its owner may enter it.
    make_private(settings.data_dir)
    # Held until the process ends: a restore refuses to write under a running server.
    in_use = hold_shared(settings.data_dir)
    token = settings.token.get_secret_value() if settings.token else None
    tokens, made = TokenBook.load(settings.data_dir, token)
    services = build_services(settings)
    streams = _event_streams(settings, services)
    gateway = LocalGateway(
        Api(services),
        tokens,
        settings.tenant_claim,
        streams,
        settings.roles_claim,
        per_token=RateLimiter(settings.requests_per_minute, settings.request_burst),
        failed_auth=RateLimiter(FAILED_AUTH_PER_MINUTE, FAILED_AUTH_PER_MINUTE),
        # Beside another tenant, a tenant's requests, running and waiting, hold at most half
        # the workers, so the other's request finds one free.
        tenants=TenantGate(
            settings.tenant_running_requests,
            max(0, settings.threads // 2 - settings.tenant_running_requests),
        ),
    )
    # History a migration found indexed under ids other sessions share is indexed again first.
    repair_index(services)
    _start_background_work(services)
    server = _waitress(settings, gateway, sock)
    # Start-up's objects out of every later full collection, once the model is loaded.
    settle_when(services.vectors.started if services.vectors is not None else None)

    def stop(signum: int, _frame: FrameType | None) -> None:
        logger.info("stopping", extra={"signal": signal.Signals(signum).name})
        if streams is not None:
            streams.closing.set()
        # waitress's loop ends on SystemExit and waits for the requests in flight.
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    host, port = server.effective_host, server.effective_port  # type: ignore[attr-defined]
    _announce(settings, services, f"http://{host}:{port}", made)
    try:
        server.run()
    finally:
        services.close()
        in_use.close()
        print("agent-memory stopped", flush=True)
    sys.stdout.flush()


def _event_streams(settings: Settings, services: Services) -> EventStreams | None:
    """Event streams where events stay in this process (None: the bus is elsewhere)."""
    if not isinstance(services.events, InProcessBus):
        return None
    # Event streams hold a thread each: keep half the threads for requests.
    return EventStreams(
        services.events,
        services.sessions,
        settings.threads // 2,
        settings.event_streams_per_tenant,
    )


def _start_background_work(services: Services) -> None:
    # Post-turn reviews run beside the requests, reviews queued before a restart first.
    worker = services.starter if isinstance(services.starter, ExtractionWorker) else None
    if worker is not None:
        worker.run_in_background()
    # Vectors of what was written are added beside the requests, those queued before a restart
    # first; until then a document is found by words.
    if services.vectors is not None:
        services.vectors.run_in_background()
    # The entity model's keys of what was written are added beside the requests likewise.
    if services.entities is not None:
        services.entities.run_in_background()
    # Expired records are written down and purged after their retention beside the requests.
    if services.expiry is not None:
        services.expiry.run_in_background()
    # Agents consolidated on a schedule (harness.memory.consolidation.every), checked every few
    # minutes.
    if services.consolidations is not None:
        services.consolidations.run_in_background()


def _waitress(settings: Settings, gateway: LocalGateway, sock: socket.socket) -> Any:
    """The waitress server on the bound socket, with the settings' connection limits."""
    server = create_server(
        gateway,
        sockets=[sock],
        threads=settings.threads,
        ident="agent-memory",
        clear_untrusted_proxy_headers=True,
        send_bytes=1,  # flush each event-stream chunk at once instead of buffering 18 kB
        # The guard keeps to max_connections by closing waiting connections; waitress's own
        # limit (which stops accepting, so nobody could make room) sits just above it.
        connection_limit=settings.max_connections + 8,
        # An idle connection is closed after this, a slow request after the guard's deadlines;
        # both checked every second, not every 30.
        channel_timeout=settings.idle_timeout_seconds,
        cleanup_interval=1,
        asyncore_use_poll=True,  # select() fails past 1024 open files
    )
    ConnectionGuard(
        settings.max_connections,
        settings.connections_per_client,
        settings.header_timeout_seconds,
        settings.body_timeout_seconds,
    ).install(server)
    return server


def _announce(settings: Settings, services: Services, url: str, made: str | None) -> None:
    """What the operator needs on start: where the token is, the address, what runs."""
    if made:
        print(f"API token (saved to {settings.data_dir / 'token'}): {made}", flush=True)
    else:
        print(f"API token: see {settings.data_dir / 'token'}", flush=True)
    model = services.extraction.model.model_id if services.extraction else "off"
    print(
        f"agent-memory listening on {url} "
        f"(store: {settings.store}, data: {settings.data_dir}, extraction: {model})",
        flush=True,
    )
    if settings.console:
        print(f"web console: {url}/ (sign in with the API token)", flush=True)
