"""What the sync and async clients share about HTTP: building a request, reading its answer, and
deciding whether a failure may be sent again (and after how long).

Which failures are retried, and why:

- **429** (throttled) and a **connection that never opened** (refused, connect timeout, no
  free connection in the pool): the server did not act on the request, so every call is sent
  again, a POST too.
- **503** and a **connection lost after the request was sent** (read timeout, reset, cut
  off): the server may have applied it, so only a call that is safe to apply twice is sent
  again. Safe: GET; DELETE (the second finds it gone); PUT (the same whole state: a manifest, a
  memory's content, the tenant's limits; a memory PUT with `contentSha256` cannot apply twice);
  and the POSTs that are idempotent by the caller's own ids: `ingest` (turn ids and event
  sequences are the caller's, a redelivered message is `already applied`) and appending events
  that all carry their `sequence` (idempotent by (turn, sequence)). Not safe, never re-sent
  after a 503 or a lost answer: creating a session or beginning a turn without an id, commit,
  rollback, tool calls, recall, fork, compact, an events batch with an event lacking a
  `sequence`, re-running extraction.

Waits: the response's `Retry-After` (seconds or an HTTP date) when it has one, else exponential
backoff with jitter; a `Retry-After` longer than `RetryPolicy.max_wait` is not waited for (the
error is raised at once, so no call blocks for minutes)."""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from .errors import ApiError, ConnectionFailed, UnexpectedResponse
from .paths import no_dot_segments

logger = logging.getLogger("agent_memory.client")

# Methods whose second application leaves what the first did (see the module's docstring).
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE"})
# The server refused the request before acting on it.
_NOT_APPLIED_STATUSES = frozenset({429})
# The server, or a proxy before it, may have acted on the request.
_MAYBE_APPLIED_STATUSES = frozenset({503})
# Raised before a byte of the request left: nothing can have been applied.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass(frozen=True)
class RetryPolicy:
    """`attempts` in all (1: never retry); waits `backoff * 2**n` seconds (with up to half of it
    again as jitter, at most `max_backoff`) unless the answer says `Retry-After`."""

    attempts: int = 4
    backoff: float = 0.25
    max_backoff: float = 8.0
    max_wait: float = 60.0

    def after(
        self,
        attempt: int,
        safe: bool,
        response: httpx.Response | None,
        exc: Exception | None,
        where: str,
    ) -> float | None:
        """Seconds to wait before sending the call again, or None: it is not sent again (a
        success, an error no retry mends, a call that may have applied, attempts spent).
        `attempt` counts from 0; `safe`: the call may apply twice; `where` names it in the log."""
        if response is not None and response.status_code < 400:
            return None
        if not self.retries(safe, response, exc):
            return None
        wait = self.wait(attempt, response)
        if wait is not None:
            status = response.status_code if response is not None else None
            logger.info(
                "retrying a call",
                extra={"call": where, "status": status, "error": repr(exc), "wait": round(wait, 3)},
            )
        return wait

    def wait(self, attempt: int, response: httpx.Response | None) -> float | None:
        """Seconds to wait before attempt `attempt + 1`, or None to give up now."""
        if attempt + 1 >= self.attempts:
            return None
        told: float | None = retry_after(response) if response is not None else None
        if told is not None:
            return told if told <= self.max_wait else None
        base = min(self.backoff * 2.0**attempt, self.max_backoff)
        return base + random.uniform(0, base / 2)  # noqa: S311 - jitter, not a secret

    def retries(self, safe: bool, response: httpx.Response | None, exc: Exception | None) -> bool:
        """Whether this failure may be sent again: `safe` says the call may apply twice."""
        if exc is not None:
            return safe or isinstance(exc, _NOT_SENT)
        assert response is not None
        if response.status_code in _NOT_APPLIED_STATUSES:
            return True
        return safe and response.status_code in _MAYBE_APPLIED_STATUSES


def retry_after(response: httpx.Response) -> float | None:
    raw = response.headers.get("Retry-After")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def base_url(url: str) -> str:
    url = url.rstrip("/")
    # `127.0.0.1:8080` as the CLI's help writes it: a bare host and port is plain HTTP.
    return url if "://" in url else f"http://{url}"


def headers(token: str | None) -> dict[str, str]:
    found = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        found["Authorization"] = f"Bearer {token}"
    return found


def target(base: str, path: str, query: dict[str, Any] | None) -> str:
    """The request's URL: agent ids and memory paths travel as plain segments, so `/` stays;
    every other character outside the unreserved set is percent-encoded (`%`, `?`, `#`, spaces,
    non-ASCII), and a `.` or `..` segment is refused before anything is sent."""
    no_dot_segments(path)
    url = base + quote(path, safe="/-._~")
    params = {k: _query_value(v) for k, v in (query or {}).items() if v is not None}
    return url + "?" + urlencode(params) if params else url


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, list | tuple | set | frozenset):
        return ",".join(str(v) for v in value)
    return str(value)


def content(body: Any) -> bytes | None:
    return json.dumps(body).encode() if body is not None else None


def answer(response: httpx.Response, lines: bool) -> Any:
    """The JSON the call answered (`lines`: JSON Lines, as a list); an error status raises."""
    raw = response.content
    if response.status_code >= 400:
        try:
            payload = json.loads(raw)
        except ValueError:
            payload = {"error": {"code": "http_error", "message": raw.decode(errors="replace")}}
        raise ApiError(response.status_code, payload)
    try:
        if lines:
            return [json.loads(line) for line in raw.decode().splitlines() if line.strip()]
        return json.loads(raw) if raw else None
    except ValueError as exc:
        where = f"{response.request.method} {response.request.url.path}"
        raise UnexpectedResponse(response.status_code, where, f"not JSON ({exc})") from exc


def unreachable(url: str, exc: httpx.TransportError) -> ConnectionFailed:
    return ConnectionFailed(url, str(exc) or type(exc).__name__)
