"""The Python SDK: `Client` (blocking) and `AsyncClient` over httpx, namespaced as the spec's
client (`client.agents.memories.put(...)`, `client.turns.begin(...)`, ...), answering the API's
own pydantic models, with page iterators, a compare-and-swap helper for file memory
(`agents.memories.update`), retries that never re-send a call that may have applied unless it is
safe to (see `transport`), and one exception type, `ClientError` (`status`, `code`,
`message`)."""

from __future__ import annotations

from . import models
from .agents import memory_path as _memory_path
from .aio import AsyncClient
from .errors import ApiError, ClientError, ConnectionFailed
from .sync import Client
from .transport import RetryPolicy

__all__ = [
    "ApiError",
    "AsyncClient",
    "Client",
    "ClientError",
    "ConnectionFailed",
    "RetryPolicy",
    "_memory_path",
    "models",
]
