"""What a turn's staged record writes become when it commits: the store writes and the changes.

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

from ..kernel.errors import Conflict
from ..kernel.events import Change
from ..turns import Effect, RecordAddEffect, RecordDeleteEffect, RecordEffect
from .models import (
    Provenance,
    Record,
    RecordOperation,
    RecordStatus,
    RecordVersion,
    RecordWrite,
)

# -- record memory ----------------------------------------------------------------------------

# The messages a record cites at most: a fact said again in every session keeps the first it was
# said in and the latest (the oldest restatements give way).
MAX_SOURCES = 32


@dataclass(frozen=True)
class RecordRestate:
    """A post-turn review found a candidate saying again what an active record says: the record
    keeps citing the messages the candidate came from (a new version, its text unchanged), so
    the later conversation that said it again still leads to it. Not a turn's staged write."""

    effect_id: str
    sequence: int
    record_id: str
    sources: tuple[str, ...]
    by: Provenance


def cited(old: Sequence[str], new: Sequence[str]) -> list[str] | None:
    """`old` sources with the `new` ones it lacks after them, within MAX_SOURCES (the first kept,
    the oldest after it dropped); None when `new` adds nothing."""
    added = [s for s in dict.fromkeys(new) if s not in old]
    if not added:
        return None
    merged = [*old, *added]
    if len(merged) > MAX_SOURCES:
        merged = merged[:1] + merged[len(merged) - MAX_SOURCES + 1 :]
    return merged


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


def records_read(effects: Sequence[RecordEffect | RecordRestate]) -> set[str]:
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
        self,
        record: Record,
        operation: RecordOperation,
        by: Provenance,
        effect: RecordEffect | RecordRestate,
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

    def restate(self, effect: RecordRestate) -> None:
        target = self.heads.get(effect.record_id)
        if target is None or target.status is not RecordStatus.ACTIVE:
            return  # replaced or deleted meanwhile: what it restated is gone
        sources = cited(target.provenance.sources, effect.sources)
        if sources is None:
            return  # said again in a message it already cites
        restated = target.model_copy(
            update={
                "provenance": target.provenance.model_copy(update={"sources": sources}),
                "version": target.version + 1,
                "updated_at": self.now,
            }
        )
        self.change(restated, RecordOperation.RESTATE, effect.by, effect)


def plan_records(
    effects: Sequence[RecordEffect | RecordRestate], stored: Mapping[str, Record], now: datetime
) -> RecordPlan:
    """Apply `effects` (adds, replaces, deletes, restatements) in order to the stored heads of
    `records_read(effects)`: a turn's staged writes, or a post-turn review's decisions."""
    applied = _RecordChanges(heads=dict(stored), now=now)
    for effect in effects:
        if isinstance(effect, RecordAddEffect):
            applied.add(effect)
        elif isinstance(effect, RecordRestate):
            applied.restate(effect)
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


__all__ = [
    "MAX_SOURCES",
    "RecordPlan",
    "RecordRestate",
    "cited",
    "check_pin_budget",
    "pins_records",
    "plan_records",
    "record_effects",
    "records_read",
]
