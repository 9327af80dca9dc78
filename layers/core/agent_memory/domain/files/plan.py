"""The file memory part of a turn's commit plan (commit_plan.py): what a turn's staged file
changes become when it commits, against the heads the caller read. Pure, as commit_plan is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..kernel.errors import Conflict
from ..kernel.events import Change
from ..kernel.ids import new_id
from ..kernel.models import Turn
from ..turns import Effect, FileChangeEffect, FileChangeItem, FileStamp
from .models import FileMemory, FileVersion, FileWrite, PreviewFile, description_of, sha256


class MemoryConflict(Conflict):
    code = "memory_conflict"


# -- file memory ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilePlan:
    """File writes against the heads read (search documents not yet attached), and the
    changes to publish: only what is stored."""

    writes: list[FileWrite]
    changes: list[Change]


def file_effects(staged: Sequence[Effect]) -> list[FileChangeEffect]:
    return [e for e in staged if isinstance(e, FileChangeEffect)]


def paths_read(effects: Sequence[FileChangeEffect]) -> list[str]:
    """The paths whose current heads `plan_files` needs, in the order the changes touch them
    (the order of the writes and of the published changes)."""
    paths: dict[str, None] = {}
    for effect in effects:
        for change in effect.payload.changes:
            if change.operation == "rename" and change.from_path is not None:
                paths.setdefault(change.from_path)
            paths.setdefault(change.path)
    return list(paths)


def stamp(memory: FileMemory | None) -> FileStamp | None:
    """What a memory is when read, to tell later whether it changed. The version alone would
    not do: a memory deleted and created again starts again at version 1."""
    if memory is None:
        return None
    return FileStamp(version=memory.version, at=memory.updated_at.isoformat())


def file_head(
    tenant: str, agent_id: str, path: str, content: str, version: int, at: datetime, actor: str
) -> FileMemory:
    return FileMemory(
        tenant=tenant,
        agent_id=agent_id,
        path=path,
        content=content,
        bytes=len(content.encode()),
        content_sha256=sha256(content),
        description=description_of(content),
        version=version,
        updated_at=at,
        updated_by=actor,
    )


@dataclass
class _FileChanges:
    turn: Turn
    base: Mapping[str, FileMemory | None]
    now: datetime
    state: dict[str, FileMemory | None] = field(default_factory=dict)
    versions: dict[str, list[FileVersion]] = field(default_factory=dict)
    # The call that made each version (by version id): its change is published with that call.
    made_by: dict[str, FileChangeEffect] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.state = dict(self.base)
        self.actor = f"agent:{self.turn.agent_id}@{self.turn.manifest_version}"

    def head(self, path: str, content: str, version: int) -> FileMemory:
        turn = self.turn
        return file_head(turn.tenant, turn.agent_id, path, content, version, self.now, self.actor)

    def made_in_turn(self, source: str, target: str) -> bool:
        """Whether a rename moves a memory this turn made (`source` was not stored before it)
        to a path that has no history of its own in the store or the turn."""
        return (
            self.base[source] is None
            and bool(self.versions.get(source))
            and self.base[target] is None
            and not self.versions.get(target)
        )

    def apply(self, change: FileChangeItem, effect: FileChangeEffect) -> None:
        path, content, source = change.path, change.content, change.from_path
        if change.operation == "rename" and source is not None:
            moved = self.state[source]
            self.state[source] = None
            if moved is not None and self.made_in_turn(source, path):
                # Never stored under the path it was made at: its history moves with it and
                # starts with its creation; the rename within the turn is seen by no one, so it
                # is no version.
                moved_versions = self.versions.pop(source)
                self.versions[path] = [v.model_copy(update={"path": path}) for v in moved_versions]
                self.state[path] = self.head(path, moved.content, moved.version)
                return
            previous = moved.version if moved else 0
        else:
            existing = self.state[path]
            previous = existing.version if existing else 0
        turn = self.turn
        version = FileVersion(
            id=new_id("fv"),
            agent_id=turn.agent_id,
            path=path,
            operation=change.operation,
            from_path=source,
            actor=self.actor,
            session_id=turn.own_session_id,
            turn_id=turn.id,
            trigger_run_id=turn.trigger_run_id,
            version=previous + 1,
            content=content,
            content_sha256=sha256(content) if content is not None else None,
            at=self.now,
        )
        self.versions.setdefault(path, []).append(version)
        self.made_by[version.id] = effect
        self.state[path] = None if content is None else self.head(path, content, previous + 1)


def plan_files(
    turn: Turn,
    effects: Sequence[FileChangeEffect],
    heads: Mapping[str, FileMemory | None],
    now: datetime,
) -> FilePlan:
    """The turn's file changes as writes against `heads` (the stored head, or None, of every
    path of `paths_read(effects)`).

    A memory another turn or an app changed since this turn read it is a 409 memory_conflict:
    the commit applies nothing, and the turn may be rolled back and rerun.
    """
    base = {path: heads[path] for path in paths_read(effects)}
    applied = _FileChanges(turn=turn, base=base, now=now)
    for effect in effects:
        for change in effect.payload.changes:
            applied.apply(change, effect)
    check_base(effects, base)
    writes = []
    for path, original in base.items():
        final = applied.state[path]
        if original is None and final is None:
            continue  # created and deleted within the turn: never visible, nothing to keep
        delta = (final is not None) - (original is not None)
        writes.append(
            FileWrite(
                path=path,
                head=final,
                expected_version=original.version if original else None,
                versions=applied.versions.get(path, []),
                count_delta=delta,
            )
        )
    # Only what is stored: a memory made and deleted within the turn was never there.
    changes = [
        Change(
            path=v.path,
            operation=v.operation,
            version=v.version,
            effect_id=applied.made_by[v.id].effect_id,
            sequence=applied.made_by[v.id].sequence,
        )
        for write in writes
        for v in write.versions
    ]
    # In call order: a call's changes are published together, the calls one after another.
    changes.sort(key=lambda c: c.sequence)
    return FilePlan(writes, changes)


def check_base(effects: Sequence[FileChangeEffect], base: Mapping[str, FileMemory | None]) -> None:
    """Each path must still be as the turn first read it."""
    read_at: dict[str, FileStamp | int | None] = {}
    for effect in effects:
        for path, seen in effect.payload.read.items():
            read_at.setdefault(path, seen)
    for path, seen in read_at.items():
        now = base.get(path)
        if isinstance(seen, int):  # staged before stamps were kept: the version alone
            unchanged = now is not None and now.version == seen
        else:
            unchanged = seen == stamp(now)
        if not unchanged:
            raise MemoryConflict(
                f"{path} changed since this turn read it; roll the turn back and run it again",
                path=path,
            )


def preview_file_writes(
    turn: Turn, effects: Sequence[FileChangeEffect], now: datetime
) -> list[FileWrite]:
    """A preview turn's changes, each path's last, kept for preview turns and applied nowhere
    live: no head, no version, no count, no search document and no event."""
    final: dict[str, str | None] = {}
    for effect in effects:
        for change in effect.payload.changes:
            if change.operation == "rename" and change.from_path is not None:
                final[change.from_path] = None
            final[change.path] = change.content
    return [
        FileWrite(
            path=path,
            head=None,
            expected_version=None,
            versions=[],
            count_delta=0,
            preview=PreviewFile(path=path, content=content, turn_id=turn.id, at=now),
        )
        for path, content in final.items()
    ]
