"""What `Client` and `AsyncClient` are made of alike: where the service is, the token, the retry
policy, and the namespaces, which run their calls through the client (`calls.Runner`)."""

from __future__ import annotations

import os
from typing import Any, cast

from .agent_manifests import AgentManifests
from .agents import Agents
from .calls import Runner
from .sessions import History, Sessions, Turns
from .transport import RetryPolicy, base_url

DEFAULT_URL = "http://127.0.0.1:8080"


class ClientBase:
    def __init__(
        self, url: str | None, token: str | None, timeout: float, retry: RetryPolicy | None
    ) -> None:
        self.url = base_url(url or os.environ.get("AGENT_MEMORY_URL") or DEFAULT_URL)
        self.token = token or os.environ.get("AGENT_MEMORY_TOKEN")
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        runner = cast(Runner, self)  # each subclass runs calls its own way (sync or async)
        # Typed by each subclass: the sync namespaces, or async_types' coroutine view of them.
        self.agents: Any = Agents(runner)
        self.agent_manifests: Any = AgentManifests(runner)
        self.sessions: Any = Sessions(runner)
        self.turns: Any = Turns(runner)
        self.history: Any = History(runner)
