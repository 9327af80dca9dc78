"""File memories as they stood at a past instant, from the versions kept: a memory written
after it does not exist, one changed since shows the content it had, one deleted or renamed
away since is back where it was.

A rename is one version, at the new path, naming the old one (`fromPath`): so the memory at a
path at an instant is decided by the newest version at or before it that names the path either
way, and every path is worked out from one walk down the agent's versions, newest first."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..kernel.errors import NotFound
from ..kernel.ids import id_floor
from ..kernel.models import Page, utcnow
from ..kernel.paging import check_limit, decode_cursor, page, str_field
from ..search import bm25
from .models import FileMemory, FileVersion, description_of, sha256
from .paths import MEMORY_ROOT, normalize_folder, normalize_path

if TYPE_CHECKING:
    from ..store import Store

VERSION_PREFIX = "fv"
MAX_LISTED = 200  # check_limit's most: memories ranked for a past instant
PAGE = 500


def memories_at(store: Store, tenant: str, agent_id: str, at: datetime) -> dict[str, FileMemory]:
    """Every memory of the agent at `at` (a later instant than now reads as now), by path."""
    at = min(at, utcnow())
    # Version ids are minted in time order just before the version is written: none minted
    # after `at` can be a version made by then.
    before: str | None = id_floor(VERSION_PREFIX, at + timedelta(milliseconds=2))
    decided: dict[str, FileMemory | None] = {}
    while before is not None:
        versions = store.file_versions(tenant, agent_id, None, PAGE, before)
        for version in versions:
            if version.at > at:
                continue
            if version.from_path is not None:
                decided.setdefault(version.from_path, None)  # renamed away by then
            decided.setdefault(version.path, _head(tenant, agent_id, version))
        before = versions[-1].id if len(versions) == PAGE else None
    return {path: memory for path, memory in decided.items() if memory is not None}


def get_memory_at(
    store: Store, tenant: str, agent_id: str, raw_path: str, at: datetime
) -> FileMemory:
    path = normalize_path(raw_path)
    found = memories_at(store, tenant, agent_id, at).get(path)
    if found is None:
        raise NotFound(f"no memory at {path} at {at.isoformat()}", code="memory_not_found")
    return found


def list_memories_at(
    store: Store,
    tenant: str,
    agent_id: str,
    prefix: str | None,
    limit: int | None,
    cursor: str | None,
    at: datetime,
) -> Page[FileMemory]:
    """The listing (path order, `pathPrefix`, cursor) as it stood at `at`."""
    size = check_limit(limit)
    if prefix and prefix.endswith(".md"):
        exact: str | None = normalize_path(prefix)  # a file's path: that memory alone
        folder = ""
    else:
        exact = None
        folder = (normalize_folder(prefix) if prefix else MEMORY_ROOT).rstrip("/") + "/"

    def matches(path: str) -> bool:
        return path == exact if exact is not None else path.startswith(folder)

    after = str_field(decode_cursor(cursor), "after")
    memories = memories_at(store, tenant, agent_id, at)
    listed = sorted(
        (m for path, m in memories.items() if matches(path) and (after is None or path > after)),
        key=lambda m: m.path,
    )
    return page(listed[: size + 1], size, lambda last: {"after": last.path})


def search_memories_at(
    store: Store,
    tenant: str,
    agent_id: str,
    query: str,
    prefix: str | None,
    limit: int | None,
    at: datetime,
) -> list[FileMemory]:
    """The listing's `query=` as of `at`: the memories then, ranked by the words of their path,
    description and content (BM25; the index holds only today's content, so meaning is not
    used for a past instant)."""
    size = check_limit(limit)
    found = list_memories_at(store, tenant, agent_id, prefix, MAX_LISTED, None, at).items
    texts = [" ".join([m.path, m.description or "", m.content]) for m in found]
    return [found[s.index] for s in bm25(query, texts)][:size]


def _head(tenant: str, agent_id: str, version: FileVersion) -> FileMemory | None:
    if version.operation == "delete" or version.content is None:
        return None
    content = version.content
    return FileMemory(
        tenant=tenant,
        agent_id=agent_id,
        path=version.path,
        content=content,
        bytes=len(content.encode()),
        content_sha256=version.content_sha256 or sha256(content),
        description=description_of(content),
        version=version.version,
        updated_at=version.at,
        updated_by=version.actor,
    )
