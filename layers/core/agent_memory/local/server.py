"""`agent-memory serve`: the embedded shape on waitress, a production multi-threaded WSGI server."""

from __future__ import annotations

import logging
import signal
import sys
from types import FrameType

from waitress.server import create_server

from ..adapters.events.local_bus import InProcessBus
from ..api.app import Api
from ..bootstrap import build_services
from ..settings import Settings
from .extraction_worker import ExtractionWorker
from .gateway import LocalGateway
from .sse import EventStreams
from .tokens import TokenBook

logger = logging.getLogger(__name__)


def serve(settings: Settings) -> None:
    """Serve until SIGTERM or SIGINT; requests in flight finish and the store closes cleanly."""
    # The directory holds the database and the token: only its owner may enter it.
    settings.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = settings.token.get_secret_value() if settings.token else None
    tokens, made = TokenBook.load(settings.data_dir, token)
    services = build_services(settings)
    streams = None
    if isinstance(services.events, InProcessBus):
        # Event streams hold a thread each: keep half the threads for requests.
        streams = EventStreams(services.events, services.agents, settings.threads // 2)
    gateway = LocalGateway(Api(services), tokens, settings.tenant_claim, streams)
    # Post-turn reviews run beside the requests, reviews queued before a restart first.
    worker = services.starter if isinstance(services.starter, ExtractionWorker) else None
    if worker is not None:
        worker.run_in_background()
    # Vectors of what was written are added beside the requests, those queued before a restart
    # first; until then a document is found by words.
    if services.vectors is not None:
        services.vectors.run_in_background()
    server = create_server(
        gateway,
        host=settings.host,
        port=settings.port,
        threads=settings.threads,
        ident="agent-memory",
        clear_untrusted_proxy_headers=True,
        send_bytes=1,  # flush each event-stream chunk at once instead of buffering 18 kB
    )

    def stop(signum: int, _frame: FrameType | None) -> None:
        logger.info("stopping", extra={"signal": signal.Signals(signum).name})
        if streams is not None:
            streams.closing.set()
        # waitress's loop ends on SystemExit and waits for the requests in flight.
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    host, port = server.effective_host, server.effective_port  # type: ignore[attr-defined]
    if made:
        print(f"API token (saved to {settings.data_dir / 'token'}): {made}", flush=True)
    else:
        print(f"API token: see {settings.data_dir / 'token'}", flush=True)
    model = services.extraction.model.model_id if services.extraction else "off"
    print(
        f"agent-memory listening on http://{host}:{port} "
        f"(store: {settings.store}, data: {settings.data_dir}, extraction: {model})",
        flush=True,
    )
    try:
        server.run()
    finally:
        services.close()
        print("agent-memory stopped", flush=True)
    sys.stdout.flush()
