"""The Python SDK: `Client` (blocking) and `AsyncClient` over httpx, namespaced as the spec's
client (`client.agents.memories.put(...)`, `client.turns.begin(...)`, ...), answering the API's
own pydantic models, with page iterators, a compare-and-swap helper for file memory
(`agents.memories.update`), retries that never re-send a call that may have applied unless it is
safe to (see `transport`), and one exception type, `ClientError` (`status`, `code`,
`message`), whatever went wrong: no answer, an error answer, a path refused before sending, or
an answer it cannot read."""

from __future__ import annotations

from . import models
from .aio import AsyncClient
from .errors import ApiError, ClientError, ConnectionFailed, InvalidPath, UnexpectedResponse
from .paths import memory_path as _memory_path
from .sync import Client
from .transport import RetryPolicy

__all__ = [
    "ApiError",
    "AsyncClient",
    "Client",
    "ClientError",
    "ConnectionFailed",
    "InvalidPath",
    "RetryPolicy",
    "UnexpectedResponse",
    "_memory_path",
    "models",
]
