"""`client.sessions`, `client.turns` (with `client.turns.tools`) and `client.history`.

Return annotations name what the sync `Client` returns; `AsyncClient` returns the same value
through an awaitable, and its `iter...` methods are async iterators."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from .calls import Area, Call, Runner, params
from .models import (
    HistoryEvent,
    HistoryHits,
    Page,
    Recall,
    Session,
    Turn,
    TurnDetail,
    from_wire,
    page_of,
)
from .paths import agent_path

Caller = dict[str, Any]


def session_path(agent_id: str, session_id: str) -> str:
    return agent_path(agent_id) + f"/-/sessions/{session_id}"


def turn_path(agent_id: str, session_id: str, turn_id: str) -> str:
    return session_path(agent_id, session_id) + f"/turns/{turn_id}"


class Sessions(Area):
    def create(
        self, agent_id: str, session_id: str | None = None, metadata: dict[str, str] | None = None
    ) -> Session:
        """Start a session (`session_id`: choose its id; `metadata`: string values)."""
        body = params(id=session_id, metadata=metadata)
        path = agent_path(agent_id) + "/-/sessions"
        return self._run(Call("POST", path, partial(from_wire, Session), body))

    def get(self, agent_id: str, session_id: str) -> Session:
        path = session_path(agent_id, session_id)
        return self._run(Call("GET", path, partial(from_wire, Session)))

    def list(
        self, agent_id: str, limit: int | None = None, cursor: str | None = None
    ) -> Page[Session]:
        """The agent's sessions, oldest first."""
        return self._run(self._list(agent_id, limit, cursor))

    def iter(self, agent_id: str, limit: int | None = None) -> Iterator[Session]:
        return self._pages(lambda cursor: self._list(agent_id, limit, cursor))

    def _list(self, agent_id: str, limit: int | None, cursor: str | None) -> Call[Page[Session]]:
        return Call(
            "GET",
            agent_path(agent_id) + "/-/sessions",
            partial(page_of, Session, "sessions"),
            query=params(limit=limit, cursor=cursor),
        )

    def memory_index(self, agent_id: str, session_id: str) -> str:
        """The memory index the session opens with (newest first, within the tenant's limits)."""
        path = session_path(agent_id, session_id) + "/memory-index"
        return self._run(Call("GET", path, _index))

    def compact(self, agent_id: str, session_id: str) -> str:
        """Refresh the session's memory index; the new index."""
        path = session_path(agent_id, session_id) + "/compact"
        return self._run(Call("POST", path, _index))


def _tool(name: str, doc: str) -> Callable[..., dict[str, Any]]:
    """`Tools.<name>(agent_id, session_id, turn_id, caller=None, **input)`."""

    def call(
        self: Tools,
        agent_id: str,
        session_id: str,
        turn_id: str,
        caller: Caller | None = None,
        **arguments: Any,
    ) -> dict[str, Any]:
        return self.call(agent_id, session_id, turn_id, name, arguments, caller)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    return call


class Tools(Area):
    """The native tools, called within a turn (`client.turns.tools`)."""

    def call(
        self,
        agent_id: str,
        session_id: str,
        turn_id: str,
        name: str,
        input: dict[str, Any] | None = None,
        caller: Caller | None = None,
        **arguments: Any,
    ) -> dict[str, Any]:
        """Call tool `name` with its input (a dict, keyword arguments, or both); `caller`
        defaults to the session's own agent. Returns the tool's output. Never re-sent once it
        may have applied: a tool call is recorded as an execution, and a write is staged."""
        body = {**(input or {}), **arguments, "caller": caller or {"role": "agent"}}
        path = turn_path(agent_id, session_id, turn_id) + f"/tools/{name}"
        return self._run(Call("POST", path, lambda out: out["output"], body))

    # One method a tool, each `(agent_id, session_id, turn_id, caller=None, **input)`.
    add_memory = _tool(
        "add_memory", "`summary`, `content`, `kind`, `labels`, `scope`, `pinned`, `replaces`."
    )
    read_memory = _tool("read_memory", "`id` or `ids`: records whatever their status.")
    delete_memory = _tool("delete_memory", "`id`: deleted when the turn commits.")
    search_memory = _tool("search_memory", "`query` or `ids`, with `kind`, `labels`, `limit`.")
    search_history = _tool(
        "search_history", "`query` or `ids`, with `limit`: the session's earlier kept events."
    )
    memory = _tool(
        "memory",
        "The file memory tool: `command` (view, create, str_replace, insert, delete, rename) with "
        'Anthropic\'s memory tool\'s parameters. Returns `{"result": "..."}`.',
    )


class Turns(Area):
    def __init__(self, runner: Runner) -> None:
        super().__init__(runner)
        self.tools = Tools(runner)

    def begin(
        self,
        agent_id: str,
        session_id: str,
        turn_id: str | None = None,
        *,
        preview: bool | None = None,
        replay_of: str | None = None,
        started_by: str | None = None,
        trigger_run_id: str | None = None,
    ) -> Turn:
        """Begin the session's next turn; it runs the agent's current manifest version."""
        body = params(
            id=turn_id,
            preview=preview,
            replay_of=replay_of,
            started_by=started_by,
            trigger_run_id=trigger_run_id,
        )
        path = session_path(agent_id, session_id) + "/turns"
        return self._run(Call("POST", path, partial(from_wire, Turn), body))

    def get(self, agent_id: str, session_id: str, turn_id: str) -> TurnDetail:
        path = turn_path(agent_id, session_id, turn_id)
        return self._run(Call("GET", path, partial(from_wire, TurnDetail)))

    def list(
        self, agent_id: str, session_id: str, limit: int | None = None, cursor: str | None = None
    ) -> Page[Turn]:
        """The session's turns in order, any status."""
        return self._run(self._list(agent_id, session_id, limit, cursor))

    def iter(self, agent_id: str, session_id: str, limit: int | None = None) -> Iterator[Turn]:
        return self._pages(lambda cursor: self._list(agent_id, session_id, limit, cursor))

    def _list(
        self, agent_id: str, session_id: str, limit: int | None, cursor: str | None
    ) -> Call[Page[Turn]]:
        return Call(
            "GET",
            session_path(agent_id, session_id) + "/turns",
            partial(page_of, Turn, "turns"),
            query=params(limit=limit, cursor=cursor),
        )

    def commit(self, agent_id: str, session_id: str, turn_id: str) -> Turn:
        """Apply the turn's staged writes and keep its events; queues post-turn extraction."""
        path = turn_path(agent_id, session_id, turn_id) + "/commit"
        return self._run(Call("POST", path, partial(from_wire, Turn)))

    def rollback(self, agent_id: str, session_id: str, turn_id: str) -> Turn:
        path = turn_path(agent_id, session_id, turn_id) + "/rollback"
        return self._run(Call("POST", path, partial(from_wire, Turn)))

    def rerun_extraction(self, agent_id: str, session_id: str, turn_id: str) -> Turn:
        """Queue a failed post-turn review again."""
        path = turn_path(agent_id, session_id, turn_id) + "/extraction"
        return self._run(Call("POST", path, partial(from_wire, Turn)))

    def events(
        self, agent_id: str, session_id: str, turn_id: str, events: builtins.list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Append the turn's messages (roles user, assistant, tool_result, error) for history
        and extraction. Sent again after a lost answer only when every event names its
        `sequence`: the server keeps each (turn, sequence) once."""
        path = turn_path(agent_id, session_id, turn_id) + "/events"
        safe = all("sequence" in e for e in events)
        return self._run(Call("POST", path, body={"events": events}, safe=safe))

    def instructions(self, agent_id: str, session_id: str, turn_id: str) -> dict[str, Any]:
        """The memory part of the turn's instructions: `instructions` (text) and `pinned`."""
        path = turn_path(agent_id, session_id, turn_id) + "/instructions"
        return self._run(Call("GET", path))

    def recall(
        self,
        agent_id: str,
        session_id: str,
        turn_id: str,
        context: str,
        caller: Caller | None = None,
    ) -> Recall:
        """The records that best match the turn's context: `records`, and `text`, a block
        marked as memory data to put before the model call."""
        body: dict[str, Any] = {"context": context}
        if caller is not None:
            body["caller"] = caller
        path = turn_path(agent_id, session_id, turn_id) + "/recall"
        return self._run(Call("POST", path, partial(from_wire, Recall), body=body))


class History(Area):
    """A session's kept events (`client.history`)."""

    def __call__(self, agent_id: str, session_id: str, **query: Any) -> dict[str, Any]:
        """The first SDK's `client.history(agent_id, session_id, fromTurn=, toTurn=, role=,
        limit=, cursor=)`: one page as the API's JSON."""
        path = session_path(agent_id, session_id) + "/history"
        return self._run(Call("GET", path, query=params(**query)))

    def list(
        self,
        agent_id: str,
        session_id: str,
        *,
        from_turn: int | None = None,
        to_turn: int | None = None,
        role: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[HistoryEvent]:
        """Kept events of committed turns, in order (`role`: comma-separated roles)."""
        window = params(fromTurn=from_turn, toTurn=to_turn, role=role)
        return self._run(self._list(agent_id, session_id, window, limit, cursor))

    def iter(
        self,
        agent_id: str,
        session_id: str,
        *,
        from_turn: int | None = None,
        to_turn: int | None = None,
        role: str | None = None,
        limit: int | None = None,
    ) -> Iterator[HistoryEvent]:
        window = params(fromTurn=from_turn, toTurn=to_turn, role=role)
        return self._pages(lambda cursor: self._list(agent_id, session_id, window, limit, cursor))

    def _list(
        self,
        agent_id: str,
        session_id: str,
        window: dict[str, Any],
        limit: int | None,
        cursor: str | None,
    ) -> Call[Page[HistoryEvent]]:
        return Call(
            "GET",
            session_path(agent_id, session_id) + "/history",
            partial(page_of, HistoryEvent, "events"),
            query={**window, **params(limit=limit, cursor=cursor)},
        )

    def search(
        self,
        agent_id: str,
        query: str,
        *,
        session_id: str | None = None,
        from_time: str | None = None,
        to_time: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> HistoryHits:
        """Events of the agent's committed turns across its sessions, best first (`session_id`
        keeps one session; `from_time`/`to_time`: ISO 8601); `next` pages on."""
        found = params(query=query, sessionId=session_id, fromTime=from_time, toTime=to_time)
        found |= params(limit=limit, cursor=cursor)
        path = agent_path(agent_id) + "/-/history"
        return self._run(Call("GET", path, HistoryHits.model_validate, query=found))

    def export(self, agent_id: str, session_id: str) -> builtins.list[dict[str, Any]]:
        """The whole session: each turn, then its events (the JSON Lines, a dict each)."""
        path = session_path(agent_id, session_id) + "/export"
        return self._run(Call("GET", path, list, lines=True))


def _index(body: dict[str, Any]) -> str:
    return str(body["index"])
