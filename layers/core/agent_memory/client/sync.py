"""`Client`: the SDK over httpx, blocking. Safe to share between threads (httpx's pool is)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any, TypeVar

import httpx

from . import transport
from .agents import Agents
from .base import ClientBase
from .calls import Call, Steps
from .errors import ApiError, ClientError
from .flat import FlatMethods
from .models import Page, Record
from .sessions import History, Sessions, Turns
from .transport import RetryPolicy

T = TypeVar("T")


class Client(ClientBase, FlatMethods):
    """`Client(url, token)`: `url` and `token` default to `AGENT_MEMORY_URL` and
    `AGENT_MEMORY_TOKEN`. Namespaces as the spec's client: `agents` (with `memories` and
    `records`), `sessions`, `turns` (with `tools`), `history`, and `search(...)`; the flat
    methods of the first SDK (`put_agent`, `call_tool`, ...) still answer dicts. Every failure
    raises `ClientError`. Use it as a context manager, or `close()` it, to free its connections.
    `transport` is an httpx transport (tests pass `httpx.MockTransport`)."""

    agents: Agents
    sessions: Sessions
    turns: Turns
    history: History

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        timeout: float = 30.0,
        *,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(url, token, timeout, retry)
        self._transport = transport
        self._http: httpx.Client | None = None
        self._lock = threading.Lock()

    def search(
        self, agent_id: str, query: str, limit: int | None = None, **filters: Any
    ) -> list[Record]:
        """The agent's records that best match `query` (filters as `agents.records.list`)."""
        return self.agents.records.search(agent_id, query, limit, **filters)

    # -- the one way out --------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        query: dict[str, Any] | None = None,
        lines: bool = False,
        retry: bool | None = None,
    ) -> Any:
        """One call; the JSON it answers (`lines`: JSON Lines, as a list). `retry`: whether the
        call may be sent again after the server may have applied it (None: GET, PUT and DELETE
        may; see `agent_memory.client.transport`)."""
        safe = retry if retry is not None else method in transport.IDEMPOTENT_METHODS
        url = transport.target(self.url, path, query)
        data = transport.content(body)
        where = f"{method} {path}"
        attempt = 0
        while True:
            try:
                response = self._client().request(method, url, content=data)
            except httpx.TransportError as exc:
                wait = self.retry.after(attempt, safe, None, exc, where)
                if wait is None:
                    raise transport.unreachable(self.url, exc) from exc
            else:
                wait = self.retry.after(attempt, safe, response, None, where)
                if wait is None:
                    return transport.answer(response, lines)
            time.sleep(wait)
            attempt += 1

    def _client(self) -> httpx.Client:
        # Made on first use: building an SSL context costs milliseconds a CLI call need not pay.
        if self._http is None:
            with self._lock:
                if self._http is None:
                    self._http = httpx.Client(
                        headers=transport.headers(self.token),
                        timeout=self.timeout,
                        transport=self._transport,
                    )
        return self._http

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- what the namespaces need (calls.Runner) ---------------------------------------------
    def run(self, call: Call[T]) -> T:
        try:
            raw = self.request(
                call.method, call.path, call.body, call.query, call.lines, call.retry_safe
            )
        except ApiError as exc:
            if call.recover is None:
                raise
            return call.recover(exc)
        return call.read(raw)

    def drive(self, steps: Steps[T]) -> T:
        try:
            call = next(steps)
            while True:
                try:
                    result = self.run(call)
                except ClientError as exc:
                    call = steps.throw(exc)
                else:
                    call = steps.send(result)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    def pages(self, first: Callable[[str | None], Call[Page[T]]]) -> Iterator[T]:
        cursor: str | None = None
        while True:
            page = self.run(first(cursor))
            yield from page.items
            if not page.next:
                return
            cursor = page.next
