"""`AsyncClient`: the same namespaces as `Client`, over `httpx.AsyncClient`; each call is awaited
and each `iter...` is an async iterator. It has no flat methods (those are the first SDK's)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any, TypeVar

import httpx

from . import transport
from .async_types import AsyncAgents, AsyncHistory, AsyncSessions, AsyncTurns
from .base import ClientBase
from .calls import Call, Steps
from .errors import ApiError, ClientError
from .models import Page, Record
from .transport import RetryPolicy

T = TypeVar("T")


class AsyncClient(ClientBase):
    """`AsyncClient(url, token)`, as `Client`: `agents` (with `memories` and `records`),
    `sessions`, `turns` (with `tools`), `history`, `search(...)`; `async with` it, or
    `await aclose()`. `transport` is an httpx async transport (tests pass `MockTransport`)."""

    agents: AsyncAgents
    sessions: AsyncSessions
    turns: AsyncTurns
    history: AsyncHistory

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        timeout: float = 30.0,
        *,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(url, token, timeout, retry)
        self._transport = transport
        self._http: httpx.AsyncClient | None = None

    async def search(
        self, agent_id: str, query: str, limit: int | None = None, **filters: Any
    ) -> list[Record]:
        """The agent's records that best match `query` (filters as `agents.records.list`)."""
        return await self.agents.records.search(agent_id, query, limit, **filters)

    async def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        query: dict[str, Any] | None = None,
        lines: bool = False,
        retry: bool | None = None,
    ) -> Any:
        """One call; the JSON it answers. `retry` as `Client.request`."""
        safe = retry if retry is not None else method in transport.IDEMPOTENT_METHODS
        url = transport.target(self.url, path, query)
        data = transport.content(body)
        where = f"{method} {path}"
        attempt = 0
        while True:
            try:
                response = await self._client().request(method, url, content=data)
            except httpx.TransportError as exc:
                wait = self.retry.after(attempt, safe, None, exc, where)
                if wait is None:
                    raise transport.unreachable(self.url, exc) from exc
            else:
                wait = self.retry.after(attempt, safe, response, None, where)
                if wait is None:
                    return transport.answer(response, lines)
            await asyncio.sleep(wait)
            attempt += 1

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(
                headers=transport.headers(self.token),
                timeout=self.timeout,
                transport=self._transport,
            )
        return self._http

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- what the namespaces need (calls.Runner) ---------------------------------------------
    async def run(self, call: Call[T]) -> T:
        try:
            raw = await self.request(
                call.method, call.path, call.body, call.query, call.lines, call.retry_safe
            )
        except ApiError as exc:
            if call.recover is None:
                raise
            return call.recover(exc)
        return call.read(raw)

    async def drive(self, steps: Steps[T]) -> T:
        try:
            call = next(steps)
            while True:
                try:
                    result = await self.run(call)
                except ClientError as exc:
                    call = steps.throw(exc)
                else:
                    call = steps.send(result)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    async def pages(self, first: Callable[[str | None], Call[Page[T]]]) -> AsyncIterator[T]:
        cursor: str | None = None
        while True:
            page = await self.run(first(cursor))
            for item in page.items:
                yield item
            if not page.next:
                return
            cursor = page.next
