"""File memory: the `memory` tool within a turn, the session index, and the app's API."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from .. import secrets
from ..effects import Effect, FileChange, FileChangeEffect, FileChangeItem, FileStamp
from ..errors import Conflict, InvalidRequest, NotFound, PayloadTooLarge
from ..events import Change, Event
from ..files.commands import MemoryToolError, run_command
from ..files.models import FileMemory, FileVersion, FileWrite, TenantLimits
from ..files.paths import MEMORY_ROOT, normalize_folder, normalize_path
from ..files.texts import text
from ..ids import new_id
from ..manifest import Manifest
from ..models import Page, Turn, utcnow
from ..paging import check_limit, decode_cursor, page, str_field
from ..ports import EventPublisher, LimitExceeded, PreconditionFailed, Store
from ..retry import TryAgain, optimistic
from ..search.index import IndexFilter
from ..search.service import SearchService, UsageEntry
from ..tool_io import MemoryIn, MemoryOut
from ..usage import usage_rows
from . import commit_plan
from .commit_plan import MemoryConflict, stamp
from .commit_plan import file_head as _head
from .records import check_turn_budget, staging_refused
from .turn_context import TurnContext, replayed_effects

_ATTEMPTS = 10
logger = logging.getLogger(__name__)
WRITE_COMMANDS = frozenset({"create", "str_replace", "insert", "delete", "rename"})


# What a tenant's admin may set. memoryBytes stays well within a DynamoDB item (400 KB), which
# holds a memory's content whole.
MEMORY_BYTES_RANGE = (1, 256 * 1024)
MEMORIES_PER_AGENT_RANGE = (1, 1_000_000)


@dataclass(frozen=True)
class FileLimits:
    """The deployment's limits (the spec's defaults); a tenant's own replace the first two."""

    memory_bytes: int = 100 * 1024
    memories_per_agent: int = 10_000
    index_lines: int = 200
    index_bytes: int = 25 * 1024

    def with_tenant(self, own: TenantLimits | None) -> FileLimits:
        if own is None:
            return self
        return replace(
            self,
            memory_bytes=own.memory_bytes or self.memory_bytes,
            memories_per_agent=own.memories_per_agent or self.memories_per_agent,
        )


class TurnFiles:
    """The FileView a turn's memory tool reads: committed files with its staged changes on top,
    and for a preview turn, the changes earlier preview turns made in between."""

    def __init__(self, store: Store, ctx: TurnContext, staged: Sequence[Effect]) -> None:
        self._store = store
        self._ctx = ctx
        self._preview: dict[str, str | None] = (
            {p.path: p.content for p in store.preview_files(ctx.tenant, ctx.agent_id)}
            if ctx.preview
            else {}
        )
        self.changes: dict[str, str | None] = {}
        # What each committed memory was when this view first read it (`stamp`): the base the
        # turn's changes are checked against when it commits.
        self.seen: dict[str, FileStamp | None] = {}
        for effect in commit_plan.file_effects(staged):
            for change in effect.payload.changes:
                self.apply(change)

    def apply(self, change: FileChangeItem) -> None:
        if change.operation == "rename" and change.from_path is not None:
            self.changes[change.from_path] = None
        self.changes[change.path] = change.content

    def read(self, path: str) -> str | None:
        if path in self.changes:
            return self.changes[path]
        if path in self._preview:
            return self._preview[path]
        found = self._store.get_file(self._ctx.tenant, self._ctx.agent_id, path)
        self.seen.setdefault(path, stamp(found))
        return found.content if found else None

    def list_under(self, folder: str) -> list[tuple[str, int]]:
        prefix = folder.rstrip("/") + "/"
        entries = {}
        for f in _all_files(self._store, self._ctx.tenant, self._ctx.agent_id, prefix):
            entries[f.path] = f.bytes
            self.seen.setdefault(f.path, stamp(f))
        for layer in (self._preview, self.changes):
            for path, content in layer.items():
                if path.startswith(prefix):
                    if content is None:
                        entries.pop(path, None)
                    else:
                        entries[path] = len(content.encode())
        return sorted(entries.items())

    def count_delta(self) -> int:
        delta = 0
        for path, content in self.changes.items():
            if path in self._preview:
                exists = self._preview[path] is not None
            else:
                found = self._store.get_file(self._ctx.tenant, self._ctx.agent_id, path)
                exists = found is not None
            delta += (content is not None) - exists
        return delta


class FileService:
    def __init__(
        self, store: Store, events: EventPublisher, limits: FileLimits, search: SearchService
    ) -> None:
        self._store = store
        self._events = events
        self.limits = limits
        self._search = search

    def limits_for(self, tenant: str) -> FileLimits:
        """The limits that hold for `tenant`: its own where its admin set them."""
        return self.limits.with_tenant(self._store.tenant_limits(tenant))

    def set_tenant_limits(
        self, tenant: str, memory_bytes: int | None, memories_per_agent: int | None
    ) -> FileLimits:
        """Set the tenant's own limits (a None argument keeps what it has)."""
        for name, value, (low, high) in (
            ("memoryBytes", memory_bytes, MEMORY_BYTES_RANGE),
            ("memoriesPerAgent", memories_per_agent, MEMORIES_PER_AGENT_RANGE),
        ):
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high
            ):
                raise InvalidRequest(
                    f"{name} must be a whole number from {low} to {high}, not {value!r}",
                    code="invalid_limit",
                )
        if memory_bytes is None and memories_per_agent is None:
            raise InvalidRequest("give memoryBytes, memoriesPerAgent or both", code="invalid_limit")
        own = self._store.tenant_limits(tenant) or TenantLimits()
        own = own.model_copy(
            update={
                k: v
                for k, v in (
                    ("memory_bytes", memory_bytes),
                    ("memories_per_agent", memories_per_agent),
                )
                if v is not None
            }
        )
        self._store.save_tenant_limits(tenant, own)
        logger.info(
            "tenant limits set",
            extra={
                "tenant": tenant,
                "memory_bytes": own.memory_bytes,
                "memories_per_agent": own.memories_per_agent,
            },
        )
        return self.limits.with_tenant(own)

    def _write(self, tenant: str, agent_id: str, writes: list[FileWrite]) -> None:
        """An app's write (outside any turn), with its search documents."""
        indexed = self._search.file_docs(tenant, agent_id, writes)
        limit = self.limits_for(tenant).memories_per_agent
        self._store.write_files(tenant, agent_id, indexed, limit)

    def _record_usage(
        self, tenant: str, agent_id: str, usage: list[UsageEntry], turn: Turn | None = None
    ) -> None:
        if usage:
            self._store.add_usage(tenant, agent_id, usage_rows(agent_id, None, usage, turn=turn))

    def search(
        self, tenant: str, agent_id: str, query: str, prefix: str | None, limit: int | None
    ) -> list[FileMemory]:
        """Memories ranked by their path, description and content (words and meaning)."""
        size = check_limit(limit)
        if self._search.index is None:
            raise InvalidRequest(
                "searching file memory needs a search index; none is configured",
                code="search_unavailable",
            )
        folder = normalize_folder(prefix).rstrip("/") + "/" if prefix else MEMORY_ROOT + "/"
        ranked, usage = self._search.rank(
            tenant, agent_id, query, IndexFilter(kind="file"), "hybrid", None
        )
        ids = [r.id for r in ranked]
        self._record_usage(tenant, agent_id, usage)
        found: list[FileMemory] = []
        for path in ids:
            if not path.startswith(folder):
                continue
            memory = self._store.get_file(tenant, agent_id, path)
            if memory is not None:  # the store decides: a stale index never shows a deleted one
                found.append(memory)
            if len(found) >= size:
                break
        return found

    # -- the memory tool --------------------------------------------------------------------

    @staticmethod
    def memory_writer(ctx: TurnContext, arguments: dict[str, Any]) -> None:
        """The memory tool's guard: a command that writes is refused, before its parameters are
        read, to a caller that may not write."""
        writes = arguments.get("command") in WRITE_COMMANDS
        if writes and (ctx.caller.role != "agent" or ctx.memory.access == "read_only"):
            who = (
                "this agent's memory is read_only"
                if ctx.caller.role == "agent"
                else "only the session's own agent writes"
            )
            raise MemoryToolError("memory.forbidden", text("forbidden", reason=who))

    def memory_tool(self, ctx: TurnContext, args: MemoryIn) -> MemoryOut:
        body = args.arguments()
        writes = body["command"] in WRITE_COMMANDS
        effect_id = ctx.effect_id("memory")
        staged = self._store.staged_effects(ctx.tenant, ctx.agent_id, ctx.session_id, ctx.turn.id)
        if writes:
            for effect in [*staged, *replayed_effects(self._store, ctx)]:
                if effect.effect_id == effect_id and isinstance(effect, FileChangeEffect):
                    return MemoryOut(result=effect.payload.output)
        view = TurnFiles(self._store, ctx, staged)
        limits = self.limits_for(ctx.tenant)
        result = run_command(body, view, max_bytes=limits.memory_bytes)
        if not result.changes:
            return MemoryOut(result=result.output)
        # A rename moves content already kept; what is written anew is scanned, whole, so the
        # line named is the line in the memory.
        warnings = secrets.check(
            ctx.memory.secrets,
            {c.path: c.content for c in result.changes if c.operation in ("create", "update")},
            "memory",
        )
        changes = [
            FileChangeItem(
                operation=c.operation, path=c.path, content=c.content, from_path=c.from_path
            )
            for c in result.changes
        ]
        # What this turn's changes are based on, as the command read it: checked again when
        # the turn commits.
        # A preview turn's changes are never applied live: there is nothing to check them against.
        read: dict[str, FileStamp | int | None] = {}
        for change in [] if ctx.preview else changes:
            for path in filter(None, (change.path, change.from_path)):
                if path not in view.changes and path not in read:
                    if path not in view.seen:
                        view.read(path)
                    read[path] = view.seen[path]
        for change in changes:
            view.apply(change)
        current = self._store.count_files(ctx.tenant, ctx.agent_id)
        if current + view.count_delta() > limits.memories_per_agent:
            raise MemoryToolError("memory.limit", text("limit", limit=limits.memories_per_agent))
        payload = FileChange(changes=changes, output=result.output, read=read)
        check_turn_budget(staged, payload)
        effect = FileChangeEffect(
            effect_id=effect_id, turn_id=ctx.turn.id, sequence=len(staged) + 1, payload=payload
        )
        try:
            self._store.stage_effect(ctx.tenant, ctx.agent_id, ctx.session_id, effect)
        except PreconditionFailed as exc:
            raise staging_refused(self._store, ctx) from exc
        if warnings:
            return MemoryOut(result=result.output, warnings=warnings)
        return MemoryOut(result=result.output)

    # -- the turn's commit --------------------------------------------------------------------

    def writes_for_commit(
        self, turn: Turn, staged: Sequence[Effect]
    ) -> tuple[list[FileWrite], list[Change]]:
        """The turn's staged file changes (of `staged`, every effect as the commit read them)
        as writes against the versions it read.

        A memory another turn or an app changed since this turn read it is a 409
        memory_conflict: the commit applies nothing, and the turn may be rolled back and rerun.
        """
        effects = commit_plan.file_effects(staged)
        if not effects:
            return [], []
        if turn.preview:
            return commit_plan.preview_file_writes(turn, effects, utcnow()), []
        heads = {
            path: self._store.get_file(turn.tenant, turn.agent_id, path)
            for path in commit_plan.paths_read(effects)
        }
        plan = commit_plan.plan_files(turn, effects, heads, utcnow())
        return self._search.file_docs(turn.tenant, turn.agent_id, plan.writes, turn), plan.changes

    # -- management API ------------------------------------------------------------------------

    def list_memories(
        self,
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
        files = self._store.list_files(tenant, agent_id, start, size + 1, after)
        return page(files, size, lambda last: {"after": last.path})

    def get(self, tenant: str, agent_id: str, raw_path: str) -> FileMemory:
        path = normalize_path(raw_path)
        found = self._store.get_file(tenant, agent_id, path)
        if found is None:
            raise NotFound(f"no memory at {path}", code="memory_not_found")
        return found

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
        warnings = secrets.check(
            lambda: self._secrets_mode(tenant, agent_id), {path: content}, "PUT memories"
        )
        size = len(content.encode())
        limits = self.limits_for(tenant)
        if size > limits.memory_bytes:
            raise PayloadTooLarge(
                f"a memory is at most {limits.memory_bytes} bytes (got {size})",
                code="memory_too_large",
                limit=limits.memory_bytes,
            )

        def put_once() -> tuple[FileMemory, bool, list[dict[str, Any]]]:
            existing = self._store.get_file(tenant, agent_id, path)
            if not _holds(existing, content_sha256):
                raise _conflict(path, existing)
            now = utcnow()
            number = existing.version + 1 if existing else 1
            head = _head(tenant, agent_id, path, content, number, now, actor)
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
            write = FileWrite(
                path=path,
                head=head,
                expected_version=existing.version if existing else None,
                versions=[version],
                count_delta=0 if existing else 1,
            )
            try:
                self._write(tenant, agent_id, [write])
            except PreconditionFailed as lost:
                # Lost a race. While the memory still has the content the caller named, the
                # precondition holds: try again; otherwise the caller's view is stale.
                current = self._store.get_file(tenant, agent_id, path)
                if not _holds(current, content_sha256):
                    raise _conflict(path, current) from None
                raise TryAgain from lost
            except LimitExceeded as exc:
                raise Conflict(
                    str(exc), code="limit_exceeded", limit=limits.memories_per_agent
                ) from exc
            self._publish(tenant, agent_id, [version])
            return head, existing is None, warnings

        return optimistic(
            put_once,
            attempts=_ATTEMPTS,
            exhausted=lambda: Conflict(
                "the memory is changing too fast; try again", code="memory_busy"
            ),
            retry_on=(),
        )

    def _secrets_mode(self, tenant: str, agent_id: str) -> secrets.SecretMode:
        """The agent's current `harness.memory.secrets` (none for an agent that is not there:
        the write then fails as not found)."""
        agent = self._store.get_agent(tenant, agent_id)
        if agent is None:
            return "off"
        return Manifest.model_validate(agent.manifest).harness.memory.secrets

    def delete(
        self, tenant: str, agent_id: str, raw_path: str, actor: str, recursive: bool = False
    ) -> list[str]:
        """Delete a memory, or (with `recursive`) every memory in a folder."""
        return optimistic(
            partial(self._delete_once, tenant, agent_id, raw_path, actor, recursive),
            attempts=_ATTEMPTS,
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
        writes = []
        for head in targets:
            version = FileVersion(
                id=new_id("fv"),
                agent_id=agent_id,
                path=head.path,
                operation="delete",
                actor=actor,
                version=head.version + 1,
                at=now,
            )
            writes.append(
                FileWrite(
                    path=head.path,
                    head=None,
                    expected_version=head.version,
                    versions=[version],
                    count_delta=-1,
                )
            )
        for start in range(0, len(writes), 24):
            self._write(tenant, agent_id, writes[start : start + 24])
            self._publish(
                tenant, agent_id, [v for w in writes[start : start + 24] for v in w.versions]
            )
        return [w.path for w in writes]

    def _targets(
        self, tenant: str, agent_id: str, raw_path: str, recursive: bool
    ) -> list[FileMemory]:
        looks_like_file = raw_path.rstrip().endswith(".md") and not raw_path.endswith("/")
        if looks_like_file:
            return [self.get(tenant, agent_id, raw_path)]
        folder = normalize_folder(raw_path)
        if not recursive:
            # One call that empties a whole folder (`/memories` itself) is never a slip.
            raise InvalidRequest(
                f"{folder} is a folder: add ?recursive=true to delete every memory in it",
                code="recursive_required",
            )
        found = _all_files(self._store, tenant, agent_id, folder.rstrip("/") + "/")
        if not found:
            raise NotFound(f"no memory under {folder}", code="memory_not_found")
        return [f for f in found]

    def versions(
        self,
        tenant: str,
        agent_id: str,
        raw_path: str | None,
        limit: int | None,
        cursor: str | None,
    ) -> Page[FileVersion]:
        path = normalize_path(raw_path) if raw_path else None
        size = check_limit(limit)
        before = str_field(decode_cursor(cursor), "before")
        found = self._store.file_versions(tenant, agent_id, path, size + 1, before)
        return page(found, size, lambda last: {"before": last.id})

    def version(self, tenant: str, agent_id: str, version_id: str) -> FileVersion:
        found = self._store.get_file_version(tenant, agent_id, version_id)
        if found is None:
            raise NotFound(f"no memory version {version_id!r}", code="memory_version_not_found")
        return found

    # -- the session's index -------------------------------------------------------------------

    def index(self, tenant: str, agent_id: str, session_id: str) -> str:
        """The index the session opened with; built on first read, refreshed by compact()."""
        kept = self._store.session_index(tenant, agent_id, session_id)
        return kept if kept is not None else self.compact(tenant, agent_id, session_id)

    def compact(self, tenant: str, agent_id: str, session_id: str) -> str:
        text = self.build_index(tenant, agent_id)
        self._store.save_session_index(tenant, agent_id, session_id, text, utcnow())
        return text

    def build_index(self, tenant: str, agent_id: str) -> str:
        files = _all_files(self._store, tenant, agent_id, MEMORY_ROOT + "/")
        files.sort(key=lambda f: (f.updated_at, f.path), reverse=True)
        lines: list[str] = []
        used = 0
        for f in files:
            line = f"{f.path} — {f.description}" if f.description else f.path
            cost = len(line.encode()) + 1
            if len(lines) >= self.limits.index_lines or used + cost > self.limits.index_bytes:
                break
            lines.append(line)
            used += cost
        # When some are left out, the line saying so counts within both limits too.
        listed = len(lines)
        while listed < len(files):
            note = (
                f"({len(files) - listed} older memories are not listed: "
                "view their folders for the rest)"
            )
            fits = listed < self.limits.index_lines
            if not listed or (fits and used + len(note.encode()) <= self.limits.index_bytes):
                return "\n".join([*lines[:listed], note])
            listed -= 1
            used -= len(lines[listed].encode()) + 1
        return "\n".join(lines)

    # -- lifecycle ---------------------------------------------------------------------------

    def copy_all(self, tenant: str, source: str, target: str, actor: str) -> int:
        """Fork: every memory copied to `target` at version 1, without history."""
        copied = 0
        # With their content: one Query a thousand memories, not a read for each.
        files = _all_files(self._store, tenant, source, MEMORY_ROOT + "/", with_content=True)
        now = utcnow()
        writes = []
        for full in files:
            head = _head(tenant, target, full.path, full.content, 1, now, actor)
            writes.append(
                FileWrite(
                    path=full.path,
                    head=head,
                    expected_version=None,
                    versions=[
                        FileVersion(
                            id=new_id("fv"),
                            agent_id=target,
                            path=full.path,
                            operation="create",
                            actor=actor,
                            version=1,
                            content=full.content,
                            content_sha256=head.content_sha256,
                            at=now,
                        )
                    ],
                    count_delta=1,
                )
            )
        for batch in _batches(writes):
            self._write(tenant, target, batch)
            copied += len(batch)
        return copied

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


def _batches(writes: list[FileWrite]) -> list[list[FileWrite]]:
    """Transaction-sized batches: at most 24 writes and about 1.5 MB of content (a DynamoDB
    transaction takes 100 actions and 4 MB, and each write stores its content twice)."""
    batches: list[list[FileWrite]] = [[]]
    size = 0
    for write in writes:
        cost = len(write.head.content.encode()) if write.head else 0
        if batches[-1] and (len(batches[-1]) >= 24 or size + cost > 1_500_000):
            batches.append([])
            size = 0
        batches[-1].append(write)
        size += cost
    return [b for b in batches if b]


def _all_files(
    store: Store, tenant: str, agent_id: str, prefix: str, *, with_content: bool = False
) -> list[FileMemory]:
    found: list[FileMemory] = []
    after = None
    while True:
        batch = store.list_files(tenant, agent_id, prefix, 1000, after, with_content=with_content)
        found += batch
        if len(batch) < 1000:
            return found
        after = batch[-1].path


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


__all__ = ["FileLimits", "FileService", "InvalidRequest"]
