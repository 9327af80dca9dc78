"""`client.agents.records`: an agent's records, their versions and expiry, and the writes its
reviews left waiting for approval.

Return annotations name what the sync `Client` returns; `AsyncClient` returns the same value
through an awaitable, and its `iter...` methods are async iterators."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from datetime import datetime
from functools import partial
from typing import Any

from .calls import Area, Call, page_items, params
from .models import Page, Record, RecordVersion, from_wire, page_of
from .paths import agent_path


class Records(Area):
    """Record memories, through the management API (a turn writes them with tools)."""

    def list(
        self,
        agent_id: str,
        *,
        query: str | None = None,
        kind: str | list[str] | None = None,
        labels: dict[str, str] | None = None,
        ids: list[str] | None = None,
        status: str | list[str] | None = None,
        scope: str | None = None,
        session_id: str | None = None,
        preview: str | None = None,
        pinned: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        as_of: datetime | None = None,
    ) -> Page[Record]:
        """Newest first, or ranked by `query` (words, meaning, recency); with `as_of`, as the
        records stood at that instant."""
        filters: dict[str, Any] = dict(kind=kind, labels=labels, ids=ids, status=status)
        filters["asOf"] = as_of
        filters |= dict(scope=scope, session_id=session_id, preview=preview, pinned=pinned)
        return self._run(self._list(agent_id, query, filters, limit, cursor))

    def iter(self, agent_id: str, *, limit: int | None = None, **filters: Any) -> Iterator[Record]:
        """Every record the filters (those of `list`, but `query`) select, newest first."""
        return self._pages(lambda cursor: self._list(agent_id, None, filters, limit, cursor))

    def _list(
        self,
        agent_id: str,
        text: str | None,
        filters: dict[str, Any],
        limit: int | None,
        cursor: str | None,
    ) -> Call[Page[Record]]:
        session_id = filters.pop("session_id", None)
        if "as_of" in filters:  # iter and search take it by its Python name
            filters["asOf"] = filters.pop("as_of")
        found = params(query=text, sessionId=session_id, limit=limit, cursor=cursor, **filters)
        return Call(
            "GET",
            agent_path(agent_id) + "/-/records",
            partial(page_of, Record, "records"),
            query=found,
        )

    def search(
        self, agent_id: str, text: str, limit: int | None = None, **filters: Any
    ) -> builtins.list[Record]:
        """The records that best match `text` (the filters of `list`), best first."""
        return self._run(page_items(self._list(agent_id, text, dict(filters), limit, None)))

    def get(self, agent_id: str, record_id: str) -> Record:
        """The record, whatever its status."""
        path = agent_path(agent_id) + f"/-/records/{record_id}"
        return self._run(Call("GET", path, partial(from_wire, Record)))

    def delete(self, agent_id: str, record_id: str) -> Record:
        """Delete at once; the deleted record (it and its versions stay readable)."""
        path = agent_path(agent_id) + f"/-/records/{record_id}"
        return self._run(Call("DELETE", path, partial(from_wire, Record)))

    def set_expiry(self, agent_id: str, record_id: str, expires_at: datetime | None) -> Record:
        """Set when the record expires (a timezone-aware datetime), or clear it with None: a
        new version. From then on it leaves recall, search and listings (status EXPIRED)."""
        if expires_at is not None and expires_at.tzinfo is None:
            raise ValueError("expires_at needs a time zone, such as datetime.now(UTC)")
        path = agent_path(agent_id) + f"/-/records/{record_id}"
        when = None if expires_at is None else expires_at.isoformat().replace("+00:00", "Z")
        return self._run(Call("PATCH", path, partial(from_wire, Record), body={"expiresAt": when}))

    def pending(
        self, agent_id: str, limit: int | None = None, cursor: str | None = None
    ) -> Page[Record]:
        """The review's writes waiting for approval (status PENDING), newest first, each
        with what it proposes (`proposal`) and its evidence (`provenance`)."""
        filters: dict[str, Any] = {"status": "PENDING"}
        return self._run(self._list(agent_id, None, filters, limit, cursor))

    def approve(self, agent_id: str, record_id: str) -> Record:
        """Apply what a PENDING record proposes, against the memory as it is now; the record
        as approved. ApiError 409 `proposal_stale` (its target changed since) or
        `proposal_restates` (an active memory says it already) leaves it PENDING."""
        path = agent_path(agent_id) + f"/-/records/{record_id}/approve"
        return self._run(Call("POST", path, partial(from_wire, Record)))

    def reject(self, agent_id: str, record_id: str) -> Record:
        """Refuse what a PENDING record proposes: it is kept REJECTED, never applied."""
        path = agent_path(agent_id) + f"/-/records/{record_id}/reject"
        return self._run(Call("POST", path, partial(from_wire, Record)))

    def versions(
        self, agent_id: str, record_id: str, limit: int | None = None, cursor: str | None = None
    ) -> Page[RecordVersion]:
        path = agent_path(agent_id) + f"/-/records/{record_id}/versions"
        found = params(limit=limit, cursor=cursor)
        return self._run(
            Call("GET", path, partial(page_of, RecordVersion, "versions"), query=found)
        )
