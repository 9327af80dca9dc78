"""An app's writes to file memory, outside any turn: put a memory whole, delete one or a
folder, each retried while it loses a race and published as `agent.memory_updated`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from .. import secrets
from ..kernel.errors import (
    Conflict,
    InvalidRequest,
    LimitExceeded,
    NotFound,
    PayloadTooLarge,
    PreconditionFailed,
)
from ..kernel.events import Change, Event, EventPublisher
from ..kernel.ids import new_id
from ..kernel.models import utcnow
from ..kernel.retry import TryAgain, optimistic
from ..manifests import Manifest
from ..search import SearchService
from .limits import FileLimits
from .models import FileMemory, FileVersion, FileWrite
from .paths import normalize_folder
from .plan import MemoryConflict, file_head
from .reads import all_files, get_memory

if TYPE_CHECKING:
    from ..store import Store

_ATTEMPTS = 10
# The most memories one store write takes: a DynamoDB transaction is 100 actions, and a write
# is its head, its version and the agent's count.
_PER_WRITE = 24


class FileWrites:
    """The writes of the management API; `write` is also the fork's."""

    def __init__(
        self,
        store: Store,
        events: EventPublisher,
        search: SearchService,
        limits_for: Callable[[str], FileLimits],
    ) -> None:
        self._store = store
        self._events = events
        self._search = search
        self._limits_for = limits_for

    def write(self, tenant: str, agent_id: str, writes: list[FileWrite]) -> None:
        """An app's write (outside any turn), with its search documents."""
        indexed = self._search.file_docs(tenant, agent_id, writes)
        limit = self._limits_for(tenant).memories_per_agent
        self._store.write_files(tenant, agent_id, indexed, limit)

    def secrets_mode(self, tenant: str, agent_id: str) -> secrets.SecretMode:
        """The agent's current `harness.memory.secrets` (none for an agent that is not there:
        the write then fails as not found)."""
        agent = self._store.get_agent(tenant, agent_id)
        if agent is None:
            return "off"
        return Manifest.model_validate(agent.manifest).harness.memory.secrets

    def put(
        self,
        tenant: str,
        agent_id: str,
        path: str,
        content: str,
        content_sha256: str | None,
        actor: str,
    ) -> tuple[FileMemory, bool]:
        """Create or replace the memory at the (normalised) `path` whole; with content_sha256,
        only while it still has that content ("" : only while no memory has the path)."""
        size = len(content.encode())
        limits = self._limits_for(tenant)
        if size > limits.memory_bytes:
            raise PayloadTooLarge(
                f"a memory is at most {limits.memory_bytes} bytes (got {size})",
                code="memory_too_large",
                limit=limits.memory_bytes,
            )
        limit = limits.memories_per_agent
        return optimistic(
            partial(self._put_once, tenant, agent_id, path, content, content_sha256, actor, limit),
            attempts=_ATTEMPTS,
            hold=self._store.exclusive,
            exhausted=lambda: Conflict(
                "the memory is changing too fast; try again", code="memory_busy"
            ),
            retry_on=(),
        )

    def _put_once(
        self,
        tenant: str,
        agent_id: str,
        path: str,
        content: str,
        content_sha256: str | None,
        actor: str,
        memories_per_agent: int,
    ) -> tuple[FileMemory, bool]:
        existing = self._store.get_file(tenant, agent_id, path)
        if not _holds(existing, content_sha256):
            raise _conflict(path, existing)
        head, write = _replacement(tenant, agent_id, path, content, existing, actor)
        try:
            self.write(tenant, agent_id, [write])
        except PreconditionFailed as lost:
            # Lost a race. While the memory still has the content the caller named, the
            # precondition holds: try again; otherwise the caller's view is stale.
            current = self._store.get_file(tenant, agent_id, path)
            if not _holds(current, content_sha256):
                raise _conflict(path, current) from None
            raise TryAgain from lost
        except LimitExceeded as exc:
            raise Conflict(str(exc), code="limit_exceeded", limit=memories_per_agent) from exc
        self._publish(tenant, agent_id, write.versions)
        return head, existing is None

    def delete(
        self, tenant: str, agent_id: str, raw_path: str, actor: str, recursive: bool
    ) -> list[str]:
        """Delete a memory, or (with `recursive`) every memory in a folder."""
        return optimistic(
            partial(self._delete_once, tenant, agent_id, raw_path, actor, recursive),
            attempts=_ATTEMPTS,
            hold=self._store.exclusive,
            exhausted=lambda: Conflict(
                "the memories are changing too fast; try again", code="memory_busy"
            ),
        )

    def _delete_once(
        self, tenant: str, agent_id: str, raw_path: str, actor: str, recursive: bool
    ) -> list[str]:
        """One try at the delete, 24 memories a write; a write that lost a race raises
        PreconditionFailed (the targets are read again: what was deleted is gone from them)."""
        targets = self._targets(tenant, agent_id, raw_path, recursive)
        now = utcnow()
        writes = [_removal(head, agent_id, actor, now) for head in targets]
        for start in range(0, len(writes), _PER_WRITE):
            batch = writes[start : start + _PER_WRITE]
            self.write(tenant, agent_id, batch)
            self._publish(tenant, agent_id, [v for w in batch for v in w.versions])
        return [w.path for w in writes]

    def _targets(
        self, tenant: str, agent_id: str, raw_path: str, recursive: bool
    ) -> list[FileMemory]:
        looks_like_file = raw_path.rstrip().endswith(".md") and not raw_path.endswith("/")
        if looks_like_file:
            return [get_memory(self._store, tenant, agent_id, raw_path)]
        folder = normalize_folder(raw_path)
        under = folder.rstrip("/") + "/"
        if not recursive:
            # A folder is only the prefix of the memories in it: with none, nothing is there.
            if not self._store.list_files(tenant, agent_id, under, 1, None):
                raise _nothing_at(folder)
            # One call that empties a whole folder (`/memories` itself) is never a slip.
            raise InvalidRequest(
                f"{folder} is a folder: add ?recursive=true to delete every memory in it",
                code="recursive_required",
            )
        found = all_files(self._store, tenant, agent_id, under)
        if not found:
            raise _nothing_at(folder)
        return found

    def _publish(self, tenant: str, agent_id: str, versions: list[FileVersion]) -> None:
        if not versions:
            return
        self._events.publish(
            [
                Event(
                    type="agent.memory_updated",
                    tenant=tenant,
                    agent_id=agent_id,
                    effect_id=new_id("eff"),
                    at=utcnow(),
                    changes=[
                        Change(path=v.path, operation=v.operation, version=v.version)
                        for v in versions
                    ],
                )
            ]
        )


def _replacement(
    tenant: str, agent_id: str, path: str, content: str, existing: FileMemory | None, actor: str
) -> tuple[FileMemory, FileWrite]:
    """The memory's new head, and the write that gives `path` this content: its next version,
    or its first."""
    now = utcnow()
    number = existing.version + 1 if existing else 1
    head = file_head(tenant, agent_id, path, content, number, now, actor)
    version = FileVersion(
        id=new_id("fv"),
        agent_id=agent_id,
        path=path,
        operation="update" if existing else "create",
        actor=actor,
        version=number,
        content=content,
        content_sha256=head.content_sha256,
        at=now,
    )
    return head, FileWrite(
        path=path,
        head=head,
        expected_version=existing.version if existing else None,
        versions=[version],
        count_delta=0 if existing else 1,
    )


def _removal(head: FileMemory, agent_id: str, actor: str, now: datetime) -> FileWrite:
    """The write that deletes one memory, based on the version read."""
    version = FileVersion(
        id=new_id("fv"),
        agent_id=agent_id,
        path=head.path,
        operation="delete",
        actor=actor,
        version=head.version + 1,
        at=now,
    )
    return FileWrite(
        path=head.path, head=None, expected_version=head.version, versions=[version], count_delta=-1
    )


def _holds(memory: FileMemory | None, content_sha256: str | None) -> bool:
    """Whether a write's precondition holds: none given, "" (no memory has the path), or the
    memory's current content hash."""
    if content_sha256 is None:
        return True
    if content_sha256 == "":
        return memory is None
    return memory is not None and memory.content_sha256 == content_sha256


def _conflict(path: str, current: FileMemory | None) -> MemoryConflict:
    return MemoryConflict(
        f"{path} does not hold the content the write expected",
        current=current.model_dump(mode="json", by_alias=True) if current else None,
    )


def _nothing_at(folder: str) -> NotFound:
    return NotFound(f"no memory or folder at {folder}", code="memory_not_found")
