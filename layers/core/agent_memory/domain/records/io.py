"""The record tools' input and output: add_memory, remove_memory, search_memory, memories
(a bad input answers `memory.invalid_argument`, listing every problem)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    Field,
    StrictBool,
    StrictInt,
    field_validator,
)

from ..kernel.deferred import DeferredModel
from ..turns import ToolIn, ToolOut
from .models import CONTENT_MAX_BYTES, LABEL_VALUE_MAX_CHARS, SUMMARY_MAX_CHARS, Record


class AddMemoryIn(ToolIn):
    summary: str = Field(min_length=1, max_length=SUMMARY_MAX_CHARS)
    content: str | None = None
    kind: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    scope: str | None = None
    pinned: StrictBool = False
    replaces: str | None = None

    @field_validator("summary")
    @classmethod
    def _one_line(cls, value: str) -> str:
        if "\n" in value or "\r" in value:
            raise ValueError("summary is one line: put details in content")
        if not value.strip():
            raise ValueError("summary must not be blank")
        return value

    @field_validator("content")
    @classmethod
    def _content_size(cls, value: str | None) -> str | None:
        if value is not None and len(value.encode()) > CONTENT_MAX_BYTES:
            raise ValueError(f"content is at most {CONTENT_MAX_BYTES} bytes")
        return value

    @field_validator("labels")
    @classmethod
    def _label_values(cls, value: dict[str, str]) -> dict[str, str]:
        for name, label in value.items():
            if len(label) > LABEL_VALUE_MAX_CHARS or not label:
                raise ValueError(f"label {name!r} needs a value of 1 to 256 characters")
        return value


class IdIn(ToolIn):
    """read_memory's and delete_memory's input."""

    id: str = Field(min_length=1, max_length=128)


class SearchMemoryIn(ToolIn):
    query: str | None = Field(default=None, max_length=4096)
    kind: str | list[str] | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    ids: list[str] | None = Field(default=None, max_length=100)
    limit: StrictInt | None = Field(default=None, ge=1, le=100)
    after: str | None = None

    def kinds(self) -> frozenset[str]:
        if self.kind is None:
            return frozenset()
        return frozenset([self.kind] if isinstance(self.kind, str) else self.kind)


class DeletedRef(DeferredModel):
    """A deleted record a replay names when it can no longer read the record itself."""

    id: str
    status: Literal["DELETED"] = "DELETED"


class MemoriesOut(ToolOut):
    """add_memory and delete_memory: the record as staged (or as an earlier attempt staged it)."""

    memories: list[Record | DeletedRef]
    warnings: list[dict[str, Any]] | None = None


class SourcesOut(ToolOut):
    """read_memory: the record, whatever its status."""

    sources: list[Record]


class RecordsOut(ToolOut):
    """search_memory: the records found, a cursor, and ids asked for that were not found."""

    records: list[Record]
    next: str | None = None
    not_found: list[str] | None = Field(default=None, alias="notFound")
