"""Reading file memory for the app's API: listing, one memory, its versions, and search."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.errors import InvalidRequest, NotFound
from ..kernel.models import Page
from ..kernel.paging import check_limit, decode_cursor, page, str_field
from ..search import IndexFilter, SearchService
from ..usage import usage_rows
from .models import FileMemory, FileVersion
from .paths import MEMORY_ROOT, normalize_folder, normalize_path

if TYPE_CHECKING:
    from ..store import Store


def all_files(
    store: Store, tenant: str, agent_id: str, prefix: str, *, with_content: bool = False
) -> list[FileMemory]:
    """Every memory under `prefix`, read a thousand at a time."""
    found: list[FileMemory] = []
    after = None
    while True:
        batch = store.list_files(tenant, agent_id, prefix, 1000, after, with_content=with_content)
        found += batch
        if len(batch) < 1000:
            return found
        after = batch[-1].path


def list_memories(
    store: Store,
    tenant: str,
    agent_id: str,
    prefix: str | None,
    limit: int | None,
    cursor: str | None,
) -> Page[FileMemory]:
    size = check_limit(limit)
    if prefix and prefix.endswith(".md"):
        start = normalize_path(prefix)  # a file's path: that memory alone
    else:
        folder = normalize_folder(prefix) if prefix else MEMORY_ROOT
        start = folder.rstrip("/") + "/"
    after = str_field(decode_cursor(cursor), "after")
    files = store.list_files(tenant, agent_id, start, size + 1, after)
    return page(files, size, lambda last: {"after": last.path})


def get_memory(store: Store, tenant: str, agent_id: str, raw_path: str) -> FileMemory:
    path = normalize_path(raw_path)
    found = store.get_file(tenant, agent_id, path)
    if found is None:
        raise NotFound(f"no memory at {path}", code="memory_not_found")
    return found


def versions(
    store: Store,
    tenant: str,
    agent_id: str,
    raw_path: str | None,
    limit: int | None,
    cursor: str | None,
) -> Page[FileVersion]:
    path = normalize_path(raw_path) if raw_path else None
    size = check_limit(limit)
    before = str_field(decode_cursor(cursor), "before")
    found = store.file_versions(tenant, agent_id, path, size + 1, before)
    return page(found, size, lambda last: {"before": last.id})


def version(store: Store, tenant: str, agent_id: str, version_id: str) -> FileVersion:
    found = store.get_file_version(tenant, agent_id, version_id)
    if found is None:
        raise NotFound(f"no memory version {version_id!r}", code="memory_version_not_found")
    return found


def search(
    store: Store,
    search_service: SearchService,
    tenant: str,
    agent_id: str,
    query: str,
    prefix: str | None,
    limit: int | None,
) -> list[FileMemory]:
    """Memories ranked by their path, description and content (words and meaning)."""
    size = check_limit(limit)
    if search_service.index is None:
        raise InvalidRequest(
            "searching file memory needs a search index; none is configured",
            code="search_unavailable",
        )
    folder = normalize_folder(prefix).rstrip("/") + "/" if prefix else MEMORY_ROOT + "/"
    ranked, usage = search_service.rank(
        tenant, agent_id, query, IndexFilter(kind="file"), "hybrid", None
    )
    if usage:
        store.add_usage(tenant, agent_id, usage_rows(agent_id, None, usage))
    found: list[FileMemory] = []
    for path in (r.id for r in ranked):
        if not path.startswith(folder):
            continue
        memory = store.get_file(tenant, agent_id, path)
        if memory is not None:  # the store decides: a stale index never shows a deleted one
            found.append(memory)
        if len(found) >= size:
            break
    return found
