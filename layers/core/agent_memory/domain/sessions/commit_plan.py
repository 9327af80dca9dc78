"""What a turn's staged writes become when it commits: the store writes and the changes to publish.

Pure: the caller reads the current heads these functions name (`records_read`, `paths_read`)
and passes them in; nothing here reads or writes a store, so the rules (supersede, a record
changed meanwhile, a rename of a memory made in the turn, a base that moved) are tested on their
own. The services add what needs other ports (search documents) and hand the writes to the
store's one commit transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..files.models import FileMemory, FileVersion, FileWrite, PreviewFile, description_of, sha256
from ..kernel.errors import Conflict
from ..kernel.events import Change
from ..kernel.ids import new_id
from ..kernel.models import Turn
from ..records.models import (
    Provenance,
    Record,
    RecordOperation,
    RecordStatus,
    RecordVersion,
    RecordWrite,
)
from .effects import (
    Effect,
    FileChangeEffect,
    FileChangeItem,
    FileStamp,
    RecordAddEffect,
    RecordDeleteEffect,
    RecordEffect,
)


class MemoryConflict(Conflict):
    code = "memory_conflict"


# -- record memory ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordPlan:
    """Record writes against the heads read (search documents not yet attached), and the
    changes they make, in order."""

    writes: list[RecordWrite]
    changes: list[Change]

    @property
    def created(self) -> list[Record]:
        """The heads of records not stored before: they need a full search document."""
        return [w.record for w in self.writes if w.expected_version is None]

    @property
    def restated(self) -> list[Record]:
        """The new heads of stored records (superseded, deleted): their text is unchanged."""
        return [w.record for w in self.writes if w.expected_version is not None]


def record_effects(staged: Sequence[Effect]) -> list[RecordEffect]:
    return [e for e in staged if isinstance(e, RecordAddEffect | RecordDeleteEffect)]


def pins_records(effects: Sequence[RecordEffect]) -> bool:
    """Whether the writes pin a record: the pin budget is then checked again at commit."""
    return any(isinstance(e, RecordAddEffect) and e.payload.record.pinned for e in effects)


def check_pin_budget(needed: int, max_tokens: int) -> None:
    """The pinned list a commit leaves (`needed` tokens, committed pins with the turn's on
    top) must fit: each pin fitted when staged, but another turn's pins may have committed."""
    if needed > max_tokens:
        raise Conflict(
            f"pin refused: other turns pinned records since this one pinned its own, and "
            f"the pinned list would now take about {needed} tokens, over this agent's "
            f"{max_tokens}. Roll this turn back and run it again.",
            code="memory.pin_budget",
        )


def records_read(effects: Sequence[RecordEffect]) -> set[str]:
    """The ids whose current heads `plan_records` needs."""
    touched: set[str] = set()
    for effect in effects:
        touched.add(effect.record_id)
        if isinstance(effect, RecordAddEffect) and effect.payload.record.replaces:
            touched.add(effect.payload.record.replaces)
    return touched


@dataclass
class _RecordChanges:
    heads: dict[str, Record]
    now: datetime
    versions: dict[str, list[RecordVersion]] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)

    def change(
        self, record: Record, operation: RecordOperation, by: Provenance, effect: RecordEffect
    ) -> None:
        self.heads[record.id] = record
        self.versions.setdefault(record.id, []).append(
            RecordVersion(record=record, operation=operation, changed_by=by, at=self.now)
        )
        self.changes.append(
            Change(
                id=record.id,
                operation=operation.value,
                version=record.version,
                effect_id=effect.effect_id,
                sequence=effect.sequence,
            )
        )

    def add(self, effect: RecordAddEffect) -> None:
        record = effect.payload.record
        if record.id in self.heads:
            return  # applied by the turn this one replays
        target = self.heads.get(record.replaces) if record.replaces else None
        supersedes = (
            target is not None and not record.preview and target.status is RecordStatus.ACTIVE
        )
        update: dict[str, object] = {"created_at": self.now, "updated_at": self.now}
        if record.replaces and not record.preview and not supersedes:
            # Another turn replaced or deleted it first: keep replaces/replacedBy paired.
            update["replaces"] = None
        record = record.model_copy(update=update)
        self.change(record, RecordOperation.CREATE, record.provenance, effect)
        if supersedes and target is not None:
            superseded = target.model_copy(
                update={
                    "status": RecordStatus.SUPERSEDED,
                    "replaced_by": record.id,
                    "version": target.version + 1,
                    "updated_at": self.now,
                }
            )
            self.change(superseded, RecordOperation.SUPERSEDE, record.provenance, effect)

    def delete(self, effect: RecordDeleteEffect) -> None:
        target = self.heads.get(effect.payload.id)
        if target is None or target.status is not RecordStatus.ACTIVE:
            return  # gone or replaced meanwhile: nothing left to delete
        if effect.payload.by is None:
            raise ValueError(f"staged delete {effect.effect_id!r} does not say who made it")
        deleted = target.model_copy(
            update={
                "status": RecordStatus.DELETED,
                "pinned": False,
                "version": target.version + 1,
                "updated_at": self.now,
            }
        )
        self.change(deleted, RecordOperation.DELETE, effect.payload.by, effect)


def plan_records(
    effects: Sequence[RecordEffect], stored: Mapping[str, Record], now: datetime
) -> RecordPlan:
    """Apply `effects` (adds, replaces, deletes) in order to the stored heads of
    `records_read(effects)`: a turn's staged writes, or a post-turn review's decisions."""
    applied = _RecordChanges(heads=dict(stored), now=now)
    for effect in effects:
        if isinstance(effect, RecordAddEffect):
            applied.add(effect)
        else:
            applied.delete(effect)
    writes = [
        RecordWrite(
            record=applied.heads[rid],
            expected_version=stored[rid].version if rid in stored else None,
            versions=versions,
        )
        for rid, versions in applied.versions.items()
    ]
    return RecordPlan(writes, applied.changes)


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


__all__ = [
    "FilePlan",
    "MemoryConflict",
    "RecordPlan",
    "check_base",
    "check_pin_budget",
    "file_effects",
    "file_head",
    "paths_read",
    "pins_records",
    "plan_files",
    "plan_records",
    "preview_file_writes",
    "record_effects",
    "records_read",
    "stamp",
]
