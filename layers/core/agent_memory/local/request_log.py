"""One JSON line per request the embedded server answers, on its own logger.

Each line says what an operator needs to follow traffic and nothing a caller sent: the method,
the route's template (`/v1/agents/<agent_id>/-/sessions`: no agent id, memory path or query),
the status, the milliseconds to the answer's start, and the caller's tenant. Never the token,
the body or the query string, which may hold what the tenant stored.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from datetime import UTC, datetime

LOGGER_NAME = "agent_memory.requests"
logger = logging.getLogger(LOGGER_NAME)

# The route of a request the resolver never saw: refused by the gateway first (401, 413, 429)
# or an event stream, which the gateway serves itself.
EVENTS_ROUTE = "/v1/agents/<agent_id>/-/events"


def log_request(
    method: str, route: str | None, status: int, started: float, tenant: str | None
) -> None:
    """Log one request; `started` is its `time.perf_counter()` at arrival."""
    if not logger.isEnabledFor(logging.INFO):
        return
    line = {
        "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "msg": "request",
        "method": method,
        "route": route,
        "status": status,
        "ms": round((time.perf_counter() - started) * 1000, 1),
        "tenant": tenant,
    }
    logger.info(json.dumps(line, separators=(",", ":")))


def log_requests_as_json_lines(stream: object = None) -> None:
    """Send request lines to stderr as bare JSON, one a line (the root logger's format would
    prefix each with its time and level, so a log reader could not parse it as JSON)."""
    if logger.handlers:
        return
    handler = logging.StreamHandler(stream or sys.stderr)  # type: ignore[arg-type]
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
