"""What a turn stages until it commits: one typed model per kind of staged write.

A turn's tools do not write memory; they stage effects, which the commit applies all at once
(and a replay of the same call finds by `effect_id`, so it applies once). Each kind carries its
own typed payload, so code reads `effect.payload.record`, never `effect.payload["record"]`,
and a new kind is a new model the type checker follows everywhere.

The stored form is unchanged from when payloads were plain dicts (field names, as JSON):
`{"effect_id", "turn_id", "sequence", "kind", "payload": {...}}`, so effects staged before
this module existed still load.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    field_serializer,
    model_serializer,
)

from ..kernel.models import Entity
from ..kernel.records import Provenance, Record, to_doc


class _Targeted(Entity):
    # The stored size of the record a write replaces or deletes, counted twice in the turn's
    # budget: the commit writes that record again beside its version.
    target_bytes: int = 0

    @model_serializer(mode="wrap")
    def _without_no_target(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A write with no target was always stored without the key: keep that form.
        doc: dict[str, Any] = handler(self)
        if not self.target_bytes:
            doc.pop("target_bytes", None)
        return doc


class RecordAdd(_Targeted):
    """A new record (or a new version replacing `record.replaces`)."""

    record: Record

    @field_serializer("record")
    def _record_doc(self, record: Record) -> dict[str, Any]:
        return to_doc(record)  # the storage form keeps the tenant the API form leaves out


class RecordDelete(_Targeted):
    id: str
    by: Provenance | None = None  # who deleted it, stamped on the deleted version


class FileStamp(Entity):
    """What a memory was when a turn first read it: its version and when it was written
    (the version alone would not do: a memory deleted and created again starts at 1)."""

    version: int
    at: str


class FileChangeItem(Entity):
    """One memory a `memory` command changes; a rename's `path` is the new path."""

    operation: Literal["create", "update", "delete", "rename"]
    path: str
    content: str | None = None
    from_path: str | None = None


class FileChange(Entity):
    """The changes one `memory` command made, what it answered, and what it read first (the
    base the commit checks again: `None` where the memory did not exist)."""

    changes: list[FileChangeItem]
    output: str
    # An int is a version alone: what effects staged before stamps were kept hold.
    read: dict[str, FileStamp | int | None] = Field(default_factory=dict)


class _Staged(Entity):
    effect_id: str = Field(serialization_alias="effectId")
    turn_id: str = Field(serialization_alias="turnId")
    sequence: int


class RecordAddEffect(_Staged):
    kind: Literal["record.add"] = "record.add"
    payload: RecordAdd

    @property
    def record_id(self) -> str:
        return self.payload.record.id


class RecordDeleteEffect(_Staged):
    kind: Literal["record.delete"] = "record.delete"
    payload: RecordDelete

    @property
    def record_id(self) -> str:
        return self.payload.id


class FileChangeEffect(_Staged):
    kind: Literal["file.change"] = "file.change"
    payload: FileChange


Effect = Annotated[
    RecordAddEffect | RecordDeleteEffect | FileChangeEffect, Field(discriminator="kind")
]
RecordEffect = RecordAddEffect | RecordDeleteEffect


@cache
def _effects() -> TypeAdapter[Effect]:
    # Made on first use, as the models are (domain/kernel/deferred.py): only routes that read staged effects use it.
    return TypeAdapter(Effect)


def effect_from_json(doc: str | bytes) -> Effect:
    """An effect as a store keeps it (`effect.model_dump_json()`)."""
    return _effects().validate_json(doc)


__all__ = [
    "Effect",
    "FileChange",
    "FileChangeEffect",
    "FileChangeItem",
    "FileStamp",
    "RecordAdd",
    "RecordAddEffect",
    "RecordDelete",
    "RecordDeleteEffect",
    "RecordEffect",
    "effect_from_json",
]
