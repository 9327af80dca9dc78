"""File memory within a turn: the `memory` tool's view of the files (committed, with the turn's
staged changes on top), the tool call that stages a command's changes, and the commit glue that
turns them into store writes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import secrets
from ..kernel.errors import PreconditionFailed
from ..kernel.events import Change
from ..kernel.models import Turn, utcnow
from ..search import SearchService
from ..turns import (
    Effect,
    FileChange,
    FileChangeEffect,
    FileChangeItem,
    FileStamp,
    TurnContext,
    check_turn_budget,
    replayed_effects,
    staging_refused,
)
from . import plan as planning
from .commands import CommandResult, MemoryToolError, run_command
from .io import MemoryIn, MemoryOut
from .limits import FileLimits
from .models import FileWrite
from .plan import stamp
from .reads import all_files
from .texts import text

if TYPE_CHECKING:
    from ..store import Store

WRITE_COMMANDS = frozenset({"create", "str_replace", "insert", "delete", "rename"})
RunCommand = Callable[..., CommandResult]


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
        for effect in planning.file_effects(staged):
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
        for f in all_files(self._store, self._ctx.tenant, self._ctx.agent_id, prefix):
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


class MemoryTool:
    """The `memory` tool's calls within a turn, and what they staged when the turn commits."""

    def __init__(
        self, store: Store, search: SearchService, limits_for: Callable[[str], FileLimits]
    ) -> None:
        self._store = store
        self._search = search
        self._limits_for = limits_for

    def call(self, ctx: TurnContext, args: MemoryIn, run: RunCommand = run_command) -> MemoryOut:
        """Run one command; a command that writes stages its changes (once, for a replay)."""
        body = args.arguments()
        effect_id = ctx.effect_id("memory")
        staged = self._store.staged_effects(ctx.tenant, ctx.agent_id, ctx.session_id, ctx.turn.id)
        if body["command"] in WRITE_COMMANDS:
            replayed = self._replayed_output(ctx, staged, effect_id)
            if replayed is not None:
                return MemoryOut(result=replayed)
        view = TurnFiles(self._store, ctx, staged)
        limits = self._limits_for(ctx.tenant)
        result = run(body, view, max_bytes=limits.memory_bytes)
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
        read = _bases(ctx, view, changes)
        for change in changes:
            view.apply(change)
        current = self._store.count_files(ctx.tenant, ctx.agent_id)
        if current + view.count_delta() > limits.memories_per_agent:
            raise MemoryToolError("memory.limit", text("limit", limit=limits.memories_per_agent))
        payload = FileChange(changes=changes, output=result.output, read=read)
        self._stage(ctx, staged, effect_id, payload)
        if warnings:
            return MemoryOut(result=result.output, warnings=warnings)
        return MemoryOut(result=result.output)

    def _replayed_output(
        self, ctx: TurnContext, staged: Sequence[Effect], effect_id: str
    ) -> str | None:
        """What the call answered the first time, when this one repeats it (same effect id)."""
        for effect in [*staged, *replayed_effects(self._store, ctx)]:
            if effect.effect_id == effect_id and isinstance(effect, FileChangeEffect):
                return effect.payload.output
        return None

    def _stage(
        self, ctx: TurnContext, staged: Sequence[Effect], effect_id: str, payload: FileChange
    ) -> None:
        check_turn_budget(staged, payload)
        effect = FileChangeEffect(
            effect_id=effect_id, turn_id=ctx.turn.id, sequence=len(staged) + 1, payload=payload
        )
        try:
            self._store.stage_effect(ctx.tenant, ctx.agent_id, ctx.session_id, effect)
        except PreconditionFailed as exc:
            raise staging_refused(self._store, ctx) from exc

    def writes_for_commit(
        self, turn: Turn, staged: Sequence[Effect]
    ) -> tuple[list[FileWrite], list[Change]]:
        """The turn's staged file changes (of `staged`, every effect as the commit read them)
        as writes against the versions it read.

        A memory another turn or an app changed since this turn read it is a 409
        memory_conflict: the commit applies nothing, and the turn may be rolled back and rerun.
        """
        effects = planning.file_effects(staged)
        if not effects:
            return [], []
        if turn.preview:
            return planning.preview_file_writes(turn, effects, utcnow()), []
        heads = {
            path: self._store.get_file(turn.tenant, turn.agent_id, path)
            for path in planning.paths_read(effects)
        }
        plan = planning.plan_files(turn, effects, heads, utcnow())
        return self._search.file_docs(turn.tenant, turn.agent_id, plan.writes, turn), plan.changes


def _bases(
    ctx: TurnContext, view: TurnFiles, changes: list[FileChangeItem]
) -> dict[str, FileStamp | int | None]:
    """What this turn's changes are based on, as the command read it: checked again when the
    turn commits. A preview turn's changes are never applied live: there is nothing to check
    them against."""
    read: dict[str, FileStamp | int | None] = {}
    for change in [] if ctx.preview else changes:
        for path in filter(None, (change.path, change.from_path)):
            if path not in view.changes and path not in read:
                if path not in view.seen:
                    view.read(path)
                read[path] = view.seen[path]
    return read
