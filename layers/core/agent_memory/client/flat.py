"""The flat methods of `Client` (`put_agent`, `call_tool`, ...): dicts in, the API's JSON out."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .errors import UnexpectedResponse
from .paths import agent_path, memory_path, without_schema
from .sessions import Turns, turn_path


class FlatMethods:
    """The first SDK's calls, kept as they were (each returns the JSON the call answers): the
    CLI, the bulk loader and older code use them. Every one goes through `request`, the client's
    one way out, so retries and errors are the same as the namespaced calls'."""

    request: Callable[..., Any]
    turns: Turns

    # -- agents ---------------------------------------------------------------------------
    def put_agent(self, agent_id: str, manifest: dict[str, Any]) -> dict[str, Any]:
        return self.request("PUT", agent_path(agent_id), without_schema(manifest))

    def get_agent(self, agent_id: str) -> dict[str, Any]:
        return self.request("GET", f"/v1/agents/{agent_id}")

    def list_agents(self, limit: int | None = None, cursor: str | None = None) -> dict[str, Any]:
        return self.request("GET", "/v1/agents", query={"limit": limit, "cursor": cursor})

    def delete_agent(self, agent_id: str) -> None:
        self.request("DELETE", f"/v1/agents/{agent_id}")

    def manifest_versions(
        self, agent_id: str, limit: int | None = None, cursor: str | None = None
    ) -> dict[str, Any]:
        return self.request(
            "GET",
            f"/v1/agents/{agent_id}/-/manifest-versions",
            query={"limit": limit, "cursor": cursor},
        )

    def fork_agent(self, agent_id: str, new_id: str) -> dict[str, Any]:
        return self.request("POST", f"/v1/agents/{agent_id}/-/fork", {"id": new_id})

    # -- sessions and turns ---------------------------------------------------------------
    def create_session(self, agent_id: str, **body: Any) -> dict[str, Any]:
        return self.request("POST", f"/v1/agents/{agent_id}/-/sessions", body)

    def list_sessions(
        self, agent_id: str, limit: int | None = None, cursor: str | None = None
    ) -> dict[str, Any]:
        query = {"limit": limit, "cursor": cursor}
        return self.request("GET", f"/v1/agents/{agent_id}/-/sessions", query=query)

    def get_session(self, agent_id: str, session_id: str) -> dict[str, Any]:
        return self.request("GET", f"/v1/agents/{agent_id}/-/sessions/{session_id}")

    def begin_turn(self, agent_id: str, session_id: str, **body: Any) -> dict[str, Any]:
        return self.request("POST", f"/v1/agents/{agent_id}/-/sessions/{session_id}/turns", body)

    def list_turns(self, agent_id: str, session_id: str, **query: Any) -> dict[str, Any]:
        path = f"/v1/agents/{agent_id}/-/sessions/{session_id}/turns"
        return self.request("GET", path, query=query)

    def get_turn(self, agent_id: str, session_id: str, turn_id: str) -> dict[str, Any]:
        return self.request("GET", turn_path(agent_id, session_id, turn_id))

    def commit_turn(self, agent_id: str, session_id: str, turn_id: str) -> dict[str, Any]:
        return self.request("POST", turn_path(agent_id, session_id, turn_id) + "/commit")

    def rollback_turn(self, agent_id: str, session_id: str, turn_id: str) -> dict[str, Any]:
        return self.request("POST", turn_path(agent_id, session_id, turn_id) + "/rollback")

    def append_events(
        self, agent_id: str, session_id: str, turn_id: str, events: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Keep the turn's messages (and tool results) for history and post-turn extraction."""
        path = turn_path(agent_id, session_id, turn_id) + "/events"
        safe = all("sequence" in e for e in events)  # kept once by (turn, sequence)
        return self.request("POST", path, {"events": events}, retry=safe)

    # -- tools and records -----------------------------------------------------------------
    def call_tool(
        self,
        agent_id: str,
        session_id: str,
        turn_id: str,
        name: str,
        input: dict[str, Any] | None = None,
        caller: dict[str, Any] | None = None,
        **arguments: Any,
    ) -> dict[str, Any]:
        """The tool's input as a dict, as keyword arguments, or both; returns its `output`."""
        return self.turns.tools.call(
            agent_id, session_id, turn_id, name, input, caller, **arguments
        )

    def instructions(self, agent_id: str, session_id: str, turn_id: str) -> dict[str, Any]:
        return self.request("GET", turn_path(agent_id, session_id, turn_id) + "/instructions")

    def recall(
        self,
        agent_id: str,
        session_id: str,
        turn_id: str,
        context: str,
        caller: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The records that best match the turn's context, marked as memory data."""
        body: dict[str, Any] = {"context": context}
        if caller is not None:
            body["caller"] = caller
        return self.request("POST", turn_path(agent_id, session_id, turn_id) + "/recall", body)

    def rerun_extraction(self, agent_id: str, session_id: str, turn_id: str) -> dict[str, Any]:
        """Queue a failed post-turn review again."""
        return self.request("POST", turn_path(agent_id, session_id, turn_id) + "/extraction")

    # -- history and usage -------------------------------------------------------------------
    def export(self, agent_id: str, session_id: str) -> list[dict[str, Any]]:
        """The whole session: each turn, then its events (the JSON Lines, one dict a line)."""
        path = f"/v1/agents/{agent_id}/-/sessions/{session_id}/export"
        return list(self.request("GET", path, lines=True))

    def memory_index(self, agent_id: str, session_id: str) -> dict[str, Any]:
        path = f"/v1/agents/{agent_id}/-/sessions/{session_id}/memory-index"
        return self.request("GET", path)

    def compact(self, agent_id: str, session_id: str) -> dict[str, Any]:
        path = f"/v1/agents/{agent_id}/-/sessions/{session_id}/compact"
        return self.request("POST", path)

    def ingest(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """Apply a batch of ingestion messages (at most 500) in order; each answered in place."""
        # Safe to send again: each message names its own session, turn and event sequence.
        answer = self.request("POST", "/v1/ingest", {"messages": messages}, retry=True)
        return _holding(answer, "POST /v1/ingest", "results")

    def load_history(
        self, path: str | os.PathLike[str], *, resume: bool = True, **options: Any
    ) -> Any:
        """Load a JSON Lines file of ingestion messages as `agent-memory ingest` does (batches
        from several senders at once, each session in order); with `resume`, a state file
        beside it lets a stopped load start after the last line answered. Options: `batch`,
        `senders`, `on_progress`, `on_failure`. Returns the load's Progress (counts, events,
        events a second)."""
        from pathlib import Path

        from ..bulk import load, read_lines

        source = Path(path)
        with source.open(encoding="utf-8") as stream:
            lines = read_lines(stream)
        state = source.with_name(source.name + ".ingest-state") if resume else None
        # Only Client mixes these methods in, so `self` is the Client the loader takes.
        return load(self, lines, source=source, state=state, **options)  # type: ignore[arg-type]

    def index_status(self, agent_id: str) -> dict[str, Any]:
        """How many of the agent's documents wait for their vector (`pendingVectors`)."""
        return self.request("GET", f"/v1/agents/{agent_id}/-/index")

    def usage(self, agent_id: str, **query: Any) -> dict[str, Any]:
        """Model calls and embeddings, newest first, with totals (`turnId`, `limit`, `cursor`)."""
        return self.request("GET", f"/v1/agents/{agent_id}/-/usage", query=query)

    def list_records(self, agent_id: str, **query: Any) -> dict[str, Any]:
        return self.request("GET", f"/v1/agents/{agent_id}/-/records", query=query)

    def get_record(self, agent_id: str, record_id: str) -> dict[str, Any]:
        return self.request("GET", f"/v1/agents/{agent_id}/-/records/{record_id}")

    def delete_record(self, agent_id: str, record_id: str) -> dict[str, Any]:
        return self.request("DELETE", f"/v1/agents/{agent_id}/-/records/{record_id}")

    def set_record_expiry(
        self, agent_id: str, record_id: str, expires_at: str | None
    ) -> dict[str, Any]:
        """Set (an ISO 8601 time with its offset) or clear (None) when the record expires."""
        path = f"/v1/agents/{agent_id}/-/records/{record_id}"
        return self.request("PATCH", path, {"expiresAt": expires_at})

    def approve_record(self, agent_id: str, record_id: str) -> dict[str, Any]:
        """Apply what a review's PENDING record proposes (see `agents.records.approve`)."""
        return self.request("POST", f"/v1/agents/{agent_id}/-/records/{record_id}/approve")

    def reject_record(self, agent_id: str, record_id: str) -> dict[str, Any]:
        """Refuse what a review's PENDING record proposes: it is kept REJECTED."""
        return self.request("POST", f"/v1/agents/{agent_id}/-/records/{record_id}/reject")

    def record_versions(self, agent_id: str, record_id: str, **query: Any) -> dict[str, Any]:
        path = f"/v1/agents/{agent_id}/-/records/{record_id}/versions"
        return self.request("GET", path, query=query)

    # -- file memory -----------------------------------------------------------------------
    def list_memories(
        self,
        agent_id: str,
        prefix: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        return self.request(
            "GET",
            f"/v1/agents/{agent_id}/-/memories",
            query={"pathPrefix": prefix, "limit": limit, "cursor": cursor},
        )

    def get_memory(self, agent_id: str, path: str) -> dict[str, Any]:
        return self.request("GET", f"/v1/agents/{agent_id}/-/memories/{memory_path(path)}")

    def put_memory(
        self, agent_id: str, path: str, content: str, content_sha256: str | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"content": content}
        if content_sha256 is not None:
            body["contentSha256"] = content_sha256
        return self.request("PUT", f"/v1/agents/{agent_id}/-/memories/{memory_path(path)}", body)

    def delete_memory(self, agent_id: str, path: str, recursive: bool = False) -> None:
        """Delete a memory; a folder (every memory in it) only with `recursive`."""
        self.request(
            "DELETE",
            f"/v1/agents/{agent_id}/-/memories/{memory_path(path)}",
            query={"recursive": "true"} if recursive else None,
        )

    def memory_versions(
        self,
        agent_id: str,
        path: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        return self.request(
            "GET",
            f"/v1/agents/{agent_id}/-/memory-versions",
            query={"path": path, "limit": limit, "cursor": cursor},
        )

    def memory_version(self, agent_id: str, version_id: str) -> dict[str, Any]:
        return self.request("GET", f"/v1/agents/{agent_id}/-/memory-versions/{version_id}")

    # -- the tenant --------------------------------------------------------------------------
    def tenant_limits(self) -> dict[str, Any]:
        return _holding(self.request("GET", "/v1/tenant/limits"), "GET /v1/tenant/limits")

    def reset_tenant(self, confirm: str, *, agents_only: bool = False) -> dict[str, Any]:
        """One step of a tenant reset (`done: false`: call again to go on); `agents_only` deletes
        the agents and keeps the tenant's limits."""
        path = "/v1/tenant/agents" if agents_only else "/v1/tenant"
        step = self.request("DELETE", path, query={"confirm": confirm})
        return _holding(step, f"DELETE {path}", "deletedAgents", "done")

    def set_tenant_limits(
        self,
        memory_bytes: int | None = None,
        memories_per_agent: int | None = None,
        expired_retention: str | None = None,
    ) -> dict[str, Any]:
        """Set the tenant's limits; `expired_retention` (ISO 8601, such as "P30D") is how long
        an expired record stays readable before it is purged."""
        body = {
            "memoryBytes": memory_bytes,
            "memoriesPerAgent": memories_per_agent,
            "expiredRetention": expired_retention,
        }
        limits = self.request(
            "PUT", "/v1/tenant/limits", {k: v for k, v in body.items() if v is not None}
        )
        return _holding(limits, "PUT /v1/tenant/limits")


def _holding(body: Any, where: str, *keys: str) -> dict[str, Any]:
    """`body` when it is an object with `keys`; else the answer is not this call's (a proxy's,
    another route's), which is an `UnexpectedResponse`, not a KeyError in the caller."""
    if not isinstance(body, dict):
        raise UnexpectedResponse(None, where, f"not a JSON object: {str(body)[:80]}")
    missing = [k for k in keys if k not in body]
    if missing:
        raise UnexpectedResponse(None, where, f"no {', '.join(missing)} in it")
    return body
