"""File memory's façade: the one service bootstrap builds, delegating to the modules that hold
each part.

- file_turns: the `memory` tool within a turn (its TurnFiles view) and the commit glue;
- file_reads / file_writes: the app's API (list, get, versions, search / put, delete);
- file_index: the session's index (index, compact, build_index);
- file_fork: copy_all, the fork's copy; file_limits: the deployment's and tenants' limits.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .. import secrets
from ..kernel.errors import InvalidRequest
from ..kernel.events import Change, EventPublisher
from ..kernel.models import Page, Turn
from ..search import SearchService
from ..turns import Effect, TurnContext
from . import fork as file_fork
from . import index as file_index
from . import reads as file_reads
from .as_of import get_memory_at, list_memories_at, search_memories_at
from .commands import run_command
from .io import MemoryIn, MemoryOut
from .limits import MEMORIES_PER_AGENT_RANGE, MEMORY_BYTES_RANGE, FileLimits, save_tenant_limits
from .models import FileMemory, FileVersion, FileWrite
from .paths import normalize_path
from .plan import MemoryConflict, stamp
from .turns import WRITE_COMMANDS, MemoryTool, TurnFiles, memory_writer
from .writes import FileWrites

if TYPE_CHECKING:
    from ..store import Store


class FileService:
    """File memory: the `memory` tool within a turn, the session index, and the app's API."""

    def __init__(
        self, store: Store, events: EventPublisher, limits: FileLimits, search: SearchService
    ) -> None:
        self._store = store
        self.limits = limits
        self._search = search
        self._tool = MemoryTool(store, search, self.limits_for)
        self._writes = FileWrites(store, events, search, self.limits_for)

    def limits_for(self, tenant: str) -> FileLimits:
        """The limits that hold for `tenant`: its own where its admin set them."""
        return self.limits.with_tenant(self._store.tenant_limits(tenant))

    def set_tenant_limits(
        self,
        tenant: str,
        memory_bytes: int | None,
        memories_per_agent: int | None,
        expired_retention: str | None = None,
    ) -> FileLimits:
        """Set the tenant's own limits (a None argument keeps what it has)."""
        own = save_tenant_limits(
            self._store, tenant, memory_bytes, memories_per_agent, expired_retention
        )
        return self.limits.with_tenant(own)

    def _write(self, tenant: str, agent_id: str, writes: list[FileWrite]) -> None:
        """An app's write (outside any turn), with its search documents."""
        self._writes.write(tenant, agent_id, writes)

    # -- the memory tool and the turn's commit ------------------------------------------------

    memory_writer = staticmethod(memory_writer)

    def memory_tool(self, ctx: TurnContext, args: MemoryIn) -> MemoryOut:
        # The command runner is this module's name, looked up on each call, so that a test can
        # put a write between the command's read and its staging (test_api_memories).
        return self._tool.call(ctx, args, run=run_command)

    def writes_for_commit(
        self, turn: Turn, staged: Sequence[Effect]
    ) -> tuple[list[FileWrite], list[Change]]:
        """The turn's staged file changes as writes against the versions it read; see
        MemoryTool.writes_for_commit (a 409 memory_conflict when one changed since)."""
        return self._tool.writes_for_commit(turn, staged)

    # -- management API ------------------------------------------------------------------------

    def search(
        self, tenant: str, agent_id: str, query: str, prefix: str | None, limit: int | None
    ) -> list[FileMemory]:
        """Memories ranked by their path, description and content (words and meaning)."""
        return file_reads.search(self._store, self._search, tenant, agent_id, query, prefix, limit)

    def list_memories(
        self,
        tenant: str,
        agent_id: str,
        prefix: str | None,
        limit: int | None,
        cursor: str | None,
    ) -> Page[FileMemory]:
        return file_reads.list_memories(self._store, tenant, agent_id, prefix, limit, cursor)

    def get(
        self, tenant: str, agent_id: str, raw_path: str, as_of: datetime | None = None
    ) -> FileMemory:
        """The memory at `raw_path`; with `as_of`, as it stood then."""
        if as_of is not None:
            return get_memory_at(self._store, tenant, agent_id, raw_path, as_of)
        return file_reads.get_memory(self._store, tenant, agent_id, raw_path)

    def memories_as_of(
        self,
        tenant: str,
        agent_id: str,
        query: str | None,
        prefix: str | None,
        limit: int | None,
        cursor: str | None,
        as_of: datetime,
    ) -> Page[FileMemory]:
        """The listing (or, with `query`, the ranking by words) as the memories stood at
        `as_of`, from their versions."""
        if query:
            found = search_memories_at(self._store, tenant, agent_id, query, prefix, limit, as_of)
            return Page(items=found)
        return list_memories_at(self._store, tenant, agent_id, prefix, limit, cursor, as_of)

    def put(
        self,
        tenant: str,
        agent_id: str,
        raw_path: str,
        content: str,
        content_sha256: str | None,
        actor: str,
    ) -> tuple[FileMemory, bool, list[dict[str, Any]]]:
        """Create or replace a memory whole; with content_sha256, only while it still has that
        content ("" : only while no memory has the path). Also returns what the secret guard
        found when the agent's manifest says `warn` (under `block` a secret is a 400)."""
        path = normalize_path(raw_path)
        # The guard is this module's `secrets`, looked up on each call:
        # benchmarks/secret_guard.py measures its cost by substituting it.
        warnings = secrets.check(
            lambda: self._writes.secrets_mode(tenant, agent_id), {path: content}, "PUT memories"
        )
        head, created = self._writes.put(tenant, agent_id, path, content, content_sha256, actor)
        return head, created, warnings

    def delete(
        self, tenant: str, agent_id: str, raw_path: str, actor: str, recursive: bool = False
    ) -> list[str]:
        """Delete a memory, or (with `recursive`) every memory in a folder."""
        return self._writes.delete(tenant, agent_id, raw_path, actor, recursive)

    def versions(
        self,
        tenant: str,
        agent_id: str,
        raw_path: str | None,
        limit: int | None,
        cursor: str | None,
    ) -> Page[FileVersion]:
        return file_reads.versions(self._store, tenant, agent_id, raw_path, limit, cursor)

    def version(self, tenant: str, agent_id: str, version_id: str) -> FileVersion:
        return file_reads.version(self._store, tenant, agent_id, version_id)

    # -- the session's index -------------------------------------------------------------------

    def index(self, tenant: str, agent_id: str, session_id: str) -> str:
        """The index the session opened with; built on first read, refreshed by compact()."""
        return file_index.session_index(self._store, self.limits, tenant, agent_id, session_id)

    def compact(self, tenant: str, agent_id: str, session_id: str) -> str:
        return file_index.compact(self._store, self.limits, tenant, agent_id, session_id)

    def build_index(self, tenant: str, agent_id: str) -> str:
        return file_index.build_index(self._store, self.limits, tenant, agent_id)

    # -- lifecycle ---------------------------------------------------------------------------

    def copy_all(self, tenant: str, source: str, target: str, actor: str) -> int:
        """Fork: every memory copied to `target` at version 1, without history."""
        # Through self._write, so a test can fail one batch (test_api_agents).
        return file_fork.copy_all(self._store, self._write, tenant, source, target, actor)


# Kept importable from here, where callers import them today.
__all__ = [
    "MEMORIES_PER_AGENT_RANGE",
    "MEMORY_BYTES_RANGE",
    "WRITE_COMMANDS",
    "FileLimits",
    "FileService",
    "InvalidRequest",
    "MemoryConflict",
    "TurnFiles",
    "stamp",
]
