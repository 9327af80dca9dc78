"""The API's answers as the domain's own pydantic models.

The domain models name their fields in snake_case and write camelCase only when they are
serialised (`serialization_alias`), and they carry the tenant, which the wire never shows. The
SDK reads an answer back into the same classes: `from_wire` renames each camelCase key to its
field (nested models too), and the subclasses here only make the unseen tenant optional. Keys
the SDK does not know are ignored, so a newer server's extra fields do not break an older SDK."""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any, Generic, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field

from ..domain import answers
from ..domain.files import models as files
from ..domain.history.models import HistoryEvent as _HistoryEvent
from ..domain.kernel import models as domain
from ..domain.records.models import Provenance, RecordStatus
from ..domain.records.models import Record as _Record
from ..domain.records.models import RecordVersion as _RecordVersion

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

ManifestVersion = domain.ManifestVersion
Extraction = domain.Extraction
TurnStatus = domain.TurnStatus
FileVersion = files.FileVersion


class Agent(domain.Agent):
    tenant: str = Field(default="", exclude=True)


class Session(domain.Session):
    tenant: str = Field(default="", exclude=True)


class Turn(domain.Turn):
    tenant: str = Field(default="", exclude=True)


class TurnDetail(Turn):
    """A turn as `GET .../turns/{turnId}` shows it: with the records it wrote, its tool
    executions, its model usage and how many of its documents wait for their vector."""

    memories: list[dict[str, Any]] = Field(default_factory=list)
    executions: list[dict[str, Any]] = Field(default_factory=list)
    usage: list[dict[str, Any]] = Field(default_factory=list)
    pending_vectors: int | None = Field(default=None, serialization_alias="pendingVectors")


class Record(_Record):
    tenant: str = Field(default="", exclude=True)


class RecordVersion(_RecordVersion):
    record: Record


class HistoryEvent(_HistoryEvent):
    tenant: str = Field(default="", exclude=True)


class Memory(files.FileMemory):
    """A file memory; `content` is None in a listing, which leaves it out."""

    tenant: str = Field(default="", exclude=True)
    content: str | None = None  # type: ignore[assignment]


class Page(BaseModel, Generic[T]):
    """One page of a listing; `next` is the cursor of the page after it (None on the last).
    Iterating a page (`for m in client.agents.memories.list(id)`) yields its items."""

    items: list[T]
    next: str | None = None

    def __iter__(self) -> Iterator[T]:  # type: ignore[override]
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> T:
        return self.items[index]


class SearchHits(answers.SearchHits):
    """`client.agents.search(...)`: one ranked list of `RecordHit`, `MemoryHit` and `EventHit`
    (each with its `type` and `score`), best first; iterating it yields the hits."""

    model_config = ConfigDict(extra="ignore")

    def __iter__(self) -> Iterator[answers.Hit]:  # type: ignore[override]
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)


class HistoryHits(answers.HistorySearchPage):
    """`client.history.search(...)`: events found across the agent's sessions, best first (each
    names its `session` and `turn`), and `next`; iterating it yields the events."""

    model_config = ConfigDict(extra="ignore")

    def __iter__(self) -> Iterator[answers.HistoryHit]:  # type: ignore[override]
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)


class Recall(BaseModel):
    """`client.turns.recall(...)`: the records that best match the turn's context, and `text`,
    the same as a block marked as memory data to put before the model call."""

    model_config = ConfigDict(extra="ignore")

    type: str = "memory"
    records: list[Record]
    text: str

    def __getitem__(self, key: str) -> Any:
        # The first SDK answered a dict: `recall["records"]` and `recall["text"]` still read.
        return getattr(self, key)


RecordHit = answers.RecordHit
MemoryHit = answers.MemoryHit
EventHit = answers.EventHit
HistoryHit = answers.HistoryHit


def from_wire(model: type[M], data: Any) -> M:
    return model.model_validate(_field_names(model, data))


def page_of(model: type[M], key: str, data: dict[str, Any]) -> Page[M]:
    return Page[model](  # type: ignore[valid-type]
        items=[from_wire(model, item) for item in data.get(key) or []], next=data.get("next")
    )


def _field_names(model: type[BaseModel], data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    names = {(f.serialization_alias or n): (n, f.annotation) for n, f in model.model_fields.items()}
    out: dict[str, Any] = {}
    for key, value in data.items():
        name, annotation = names.get(key, (key, None))
        out[name] = _nested(annotation, value)
    return out


def _nested(annotation: Any, value: Any) -> Any:
    """`value` with the keys of the models `annotation` holds renamed (X, list[X], X | None)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _field_names(annotation, value)
    origin = get_origin(annotation)
    if origin is list and isinstance(value, list):
        (item,) = get_args(annotation) or (None,)
        return [_nested(item, v) for v in value]
    if origin in (Union, types.UnionType):
        for arg in get_args(annotation):
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                return _field_names(arg, value)
    return value


__all__ = [
    "Agent",
    "EventHit",
    "Extraction",
    "FileVersion",
    "HistoryEvent",
    "HistoryHit",
    "HistoryHits",
    "ManifestVersion",
    "Memory",
    "MemoryHit",
    "Page",
    "Provenance",
    "Recall",
    "Record",
    "RecordHit",
    "RecordStatus",
    "RecordVersion",
    "SearchHits",
    "Session",
    "Turn",
    "TurnDetail",
    "TurnStatus",
]
