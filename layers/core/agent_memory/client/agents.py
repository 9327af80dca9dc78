"""`client.agents`, `client.agents.memories`, `client.agents.records` and `client.search`.

Return annotations name what the sync `Client` returns; `AsyncClient` returns the same value
through an awaitable, and its `iter...` methods are async iterators."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import partial
from typing import Any

from pydantic import BaseModel

from ..domain.files.models import sha256
from .calls import Area, Call, Runner, Steps, page_items, params
from .errors import ApiError
from .models import (
    Agent,
    FileVersion,
    ManifestVersion,
    Memory,
    Page,
    SearchHits,
    from_wire,
    page_of,
)
from .paths import agent_path, memory_path, without_schema
from .records import Records


class Agents(Area):
    def __init__(self, runner: Runner) -> None:
        super().__init__(runner)
        self.memories = Memories(runner)
        self.records = Records(runner)

    def put(self, agent_id: str, manifest: dict[str, Any] | BaseModel) -> Agent:
        """Save the manifest (`{"harness": {...}}`) as the agent's next version. `$schema`, an
        editor's hint in a manifest file, is dropped: the service takes no other top-level key."""
        if isinstance(manifest, BaseModel):
            manifest = manifest.model_dump(mode="json", by_alias=True, exclude_unset=True)
        manifest = without_schema(manifest)
        return self._run(Call("PUT", agent_path(agent_id), partial(from_wire, Agent), manifest))

    def get(self, agent_id: str, as_of: datetime | None = None) -> Agent:
        """The agent; with `as_of`, with the manifest version current at that instant."""
        found = params(asOf=as_of)
        return self._run(Call("GET", agent_path(agent_id), partial(from_wire, Agent), query=found))

    def list(self, limit: int | None = None, cursor: str | None = None) -> Page[Agent]:
        return self._run(self._list(limit, cursor))

    def iter(self, limit: int | None = None) -> Iterator[Agent]:
        """Every agent, page after page."""
        return self._pages(lambda cursor: self._list(limit, cursor))

    def _list(self, limit: int | None, cursor: str | None) -> Call[Page[Agent]]:
        return Call(
            "GET",
            "/v1/agents",
            partial(page_of, Agent, "agents"),
            query=params(limit=limit, cursor=cursor),
        )

    def delete(self, agent_id: str) -> None:
        return self._run(Call[None]("DELETE", agent_path(agent_id)))

    def fork(self, agent_id: str, new_id: str) -> Agent:
        path = agent_path(agent_id) + "/-/fork"
        # Not retried once it may have applied: a second fork finds the copy there (409).
        return self._run(Call("POST", path, partial(from_wire, Agent), {"id": new_id}))

    def export_page(
        self, agent_id: str, cursor: str | None = None, limit: int | None = None
    ) -> dict[str, Any]:
        """One page of the agent read out as bundle items (admin scope): `{"format",
        "version", "modelId", "items", "next"}`; pass `next` as `cursor` until it is null.
        `agent-memory export` writes these pages to a bundle file (docs/export-import.md)."""
        path = agent_path(agent_id) + "/-/export"
        return self._run(Call("GET", path, query=params(limit=limit, cursor=cursor)))

    def import_items(self, agent_id: str, items: builtins.list[dict[str, Any]]) -> dict[str, Any]:
        """Write a batch of the agent's bundle items (at most 500, in the bundle's order) as
        they were (admin scope): `{"written", "kept", "vectorsReused", "vectorsQueued"}`. Each
        item is written once, so a batch sent again (a retry) changes nothing."""
        path = agent_path(agent_id) + "/-/import"
        return self._run(Call("POST", path, body={"items": items}, safe=True))

    def manifest_versions(
        self, agent_id: str, limit: int | None = None, cursor: str | None = None
    ) -> Page[ManifestVersion]:
        return self._run(
            Call(
                "GET",
                agent_path(agent_id) + "/-/manifest-versions",
                partial(page_of, ManifestVersion, "versions"),
                query=params(limit=limit, cursor=cursor),
            )
        )

    def manifest_version(self, agent_id: str, version: int) -> ManifestVersion:
        path = agent_path(agent_id) + f"/-/manifest-versions/{version}"
        return self._run(Call("GET", path, partial(from_wire, ManifestVersion)))

    def search(
        self,
        agent_id: str,
        query: str,
        types: str | builtins.list[str] | None = None,
        limit: int | None = None,
        as_of: datetime | None = None,
    ) -> SearchHits:
        """One search over the agent's records, file memories and history (`types`: some of
        records, memories, history), best first; iterating the answer yields its hits. With
        `as_of`, what the agent knew at that instant."""
        found = params(query=query, types=types, limit=limit, asOf=as_of)
        path = agent_path(agent_id) + "/-/search"
        return self._run(Call("GET", path, SearchHits.model_validate, query=found))

    def entities(
        self,
        agent_id: str,
        query: str | None = None,
        limit: int | None = None,
        items: int | None = None,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        """The names the agent's records, file memories and history mention, in key order:
        `entities` (each its `key`, `count` and newest `items` mentioning it) and `next`.
        `query` keeps the keys starting with it (`Caroline's` finds caroline)."""
        found = params(query=query, limit=limit, items=items, cursor=cursor)
        return self._run(Call("GET", agent_path(agent_id) + "/-/entities", query=found))

    def index_status(self, agent_id: str) -> dict[str, Any]:
        """`pendingVectors` (documents not yet findable by meaning) and `embeddingModel`."""
        return self._run(Call("GET", agent_path(agent_id) + "/-/index"))

    def usage(
        self,
        agent_id: str,
        turn_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        """Model calls and embeddings, newest first, with totals."""
        found = params(turnId=turn_id, limit=limit, cursor=cursor)
        return self._run(Call("GET", agent_path(agent_id) + "/-/usage", query=found))

    def consolidate(self, agent_id: str, dry_run: bool = False) -> dict[str, Any]:
        """Consolidate the agent's record memory (twins merged, contradictions resolved to the
        newer fact, stale events expired, pins within budget): the run, its counts and its
        plan. With `dry_run`, only the plan: nothing is changed or kept."""
        path = agent_path(agent_id) + "/-/consolidate"
        query = params(dryRun="true") if dry_run else None
        return self._run(Call("POST", path, query=query))


class Memories(Area):
    """File memories under `/memories` (paths as the service takes them: `notes/a.md`)."""

    def _path(self, agent_id: str, path: str) -> str:
        return agent_path(agent_id) + "/-/memories/" + memory_path(path)

    def list(
        self,
        agent_id: str,
        path_prefix: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        as_of: datetime | None = None,
    ) -> Page[Memory]:
        """Memories by path, without their content (`as_of`: as they stood then)."""
        return self._run(self._list(agent_id, path_prefix, limit, cursor, as_of))

    def iter(
        self,
        agent_id: str,
        path_prefix: str | None = None,
        limit: int | None = None,
        as_of: datetime | None = None,
    ) -> Iterator[Memory]:
        return self._pages(lambda cursor: self._list(agent_id, path_prefix, limit, cursor, as_of))

    def _list(
        self,
        agent_id: str,
        prefix: str | None,
        limit: int | None,
        cursor: str | None,
        as_of: datetime | None = None,
    ) -> Call[Page[Memory]]:
        found = params(pathPrefix=prefix, limit=limit, cursor=cursor, asOf=as_of)
        path = agent_path(agent_id) + "/-/memories"
        return Call("GET", path, partial(page_of, Memory, "memories"), query=found)

    def search(
        self, agent_id: str, text: str, path_prefix: str | None = None, limit: int | None = None
    ) -> builtins.list[Memory]:
        """Memories ranked by path, description and content (words and meaning)."""
        found = params(query=text, pathPrefix=path_prefix, limit=limit)
        path = agent_path(agent_id) + "/-/memories"
        return self._run(
            page_items(Call("GET", path, partial(page_of, Memory, "memories"), query=found))
        )

    def get(self, agent_id: str, path: str, as_of: datetime | None = None) -> Memory:
        """The memory with its content (`as_of`: as it stood then)."""
        found = params(asOf=as_of)
        path = self._path(agent_id, path)
        return self._run(Call("GET", path, partial(from_wire, Memory), query=found))

    def put(
        self, agent_id: str, path: str, content: str, content_sha256: str | None = None
    ) -> Memory:
        """Create or replace it whole; with `content_sha256` only while the memory holds that
        content (`""`: only while there is none), else `ApiError` 409 `memory_conflict`."""
        return self._run(self._put(agent_id, path, content, content_sha256))

    def _put(
        self, agent_id: str, path: str, content: str, content_sha256: str | None
    ) -> Call[Memory]:
        body: dict[str, Any] = {"content": content}
        if content_sha256 is not None:
            body["contentSha256"] = content_sha256
        return Call(
            "PUT",
            self._path(agent_id, path),
            partial(from_wire, Memory),
            body,
            recover=partial(_already_written, content) if content_sha256 is not None else None,
        )

    def delete(self, agent_id: str, path: str, recursive: bool = False) -> None:
        """Delete a memory; with `recursive`, a folder (`notes` or `notes/`): every memory in
        it. A folder without `recursive` is `ApiError` 400 `recursive_required`."""
        query = params(recursive=True) if recursive else None
        return self._run(Call[None]("DELETE", self._path(agent_id, path), query=query))

    def versions(
        self,
        agent_id: str,
        path: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[FileVersion]:
        """Every change, newest first (the agent's, or one path's)."""
        return self._run(self._versions(agent_id, path, limit, cursor))

    def iter_versions(
        self, agent_id: str, path: str | None = None, limit: int | None = None
    ) -> Iterator[FileVersion]:
        return self._pages(lambda cursor: self._versions(agent_id, path, limit, cursor))

    def _versions(
        self, agent_id: str, path: str | None, limit: int | None, cursor: str | None
    ) -> Call[Page[FileVersion]]:
        found = params(path=path, limit=limit, cursor=cursor)
        return Call(
            "GET",
            agent_path(agent_id) + "/-/memory-versions",
            partial(page_of, FileVersion, "versions"),
            query=found,
        )

    def version(self, agent_id: str, version_id: str) -> FileVersion:
        """One version with the content it left (None for a delete)."""
        path = agent_path(agent_id) + f"/-/memory-versions/{version_id}"
        return self._run(Call("GET", path, partial(from_wire, FileVersion)))

    def update(
        self,
        agent_id: str,
        path: str,
        change: Callable[[str | None], str | None],
        attempts: int = 5,
        on_conflict: Callable[[int], None] | None = None,
    ) -> Memory | None:
        """Compare-and-swap: read the memory, `change(content)` (None when there is none yet)
        gives the new content, which is written only while the memory still holds what was read;
        when another writer got there first (`memory_conflict`), `change` is given their content
        and tried again, at most `attempts` times. `change` returning None leaves the memory as
        it is (the result is then what was read, or None). `on_conflict(attempt)` is called
        after each lost race."""
        return self._drive(self._update(agent_id, path, change, attempts, on_conflict))

    def _update(
        self,
        agent_id: str,
        path: str,
        change: Callable[[str | None], str | None],
        attempts: int,
        on_conflict: Callable[[int], None] | None,
    ) -> Steps[Memory | None]:
        try:
            current: Memory | None = yield Call(
                "GET", self._path(agent_id, path), partial(from_wire, Memory)
            )
        except ApiError as exc:
            if exc.status != 404:
                raise
            current = None
        for attempt in range(attempts):
            new = change(current.content if current else None)
            if new is None:
                return current
            try:
                written: Memory = yield self._put(
                    agent_id, path, new, current.content_sha256 if current else ""
                )
                return written
            except ApiError as exc:
                if exc.code != "memory_conflict" or attempt + 1 >= attempts:
                    raise
                if on_conflict is not None:
                    on_conflict(attempt + 1)
                # The conflict carries the memory as it now is (None: deleted meanwhile).
                seen = exc.details.get("current")
                current = from_wire(Memory, seen) if seen else None
        raise AssertionError("unreachable")


def _already_written(content: str, exc: ApiError) -> Memory:
    """A compare-and-swap PUT sent again after its first try applied (its answer lost) finds its
    own content there: that is the write done, not a conflict."""
    current = exc.details.get("current") if exc.code == "memory_conflict" else None
    if current and current.get("contentSha256") == sha256(content):
        return from_wire(Memory, current)
    raise exc
