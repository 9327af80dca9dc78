"""What the routes answer where a service hands back JSON it built (camelCase dicts) or a domain
model that needs a field added or left out: models that describe that JSON in the OpenAPI
document and check it on the way out, without changing a byte of it.

A model here forbids keys it does not declare, so an answer that grows a key fails its route's
tests instead of losing the key; a key the service sets only sometimes is declared optional and
left out of the answer while it is None, as the service leaves it out.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler, JsonValue
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from ..domain.answers import (  # one model per shape: the services build these
    AppendOut,
    EventHit,
    HistoryHit,
    HistoryPage,
    HistorySearchPage,
    KeptSecret,
    MemoryHit,
    RecordHit,
    SearchHits,
    TurnWithWrites,
)
from ..domain.files.models import FileMemory, FileVersion
from ..domain.kernel.deferred import DeferredModel

__all__ = [
    "AppendOut",
    "EventHit",
    "HistoryHit",
    "HistoryPage",
    "HistorySearchPage",
    "KeptSecret",
    "MemoryHit",
    "RecordHit",
    "SearchHits",
    "TurnWithWrites",
]


class DescribedBy:
    """Annotates a dict a domain model dumped (by alias, as JSON) with that model's schema: the
    dict goes out as it is, and the document says what is in it."""

    def __init__(self, model: type[BaseModel]) -> None:
        self.model = model

    def __get_pydantic_json_schema__(
        self, _: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(self.model.__pydantic_core_schema__)


# A body the route hands on for its service to check (with the service's own 4xx).
JsonObject = dict[str, JsonValue]


def _unset(value: object) -> bool:
    return value is None


class _Answer(DeferredModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# -- file memory ------------------------------------------------------------------------------------


class MemorySummary(FileMemory):
    """A memory as listings give it: everything but its content."""

    content: str = Field(exclude=True)


class MemoryList(DeferredModel):
    memories: list[MemorySummary]
    next: str | None


class SecretWarning(_Answer):
    """What looks like a secret in a write that `harness.memory.secrets: warn` kept."""

    code: str
    field: str
    kind: str
    line: int


class PutMemoryOut(FileMemory):
    """The memory as the write left it, with what looked like a secret in it (under `warn`)."""

    warnings: list[SecretWarning] | None = Field(default=None, exclude_if=_unset)


class VersionSummary(FileVersion):
    """A version as the listing gives it: without the content it left."""

    content: str | None = Field(default=None, exclude=True)


class MemoryVersionList(DeferredModel):
    versions: list[VersionSummary]
    next: str | None


class MemoryIndex(DeferredModel):
    index: str = Field(description="A line per memory, newest first.")


# -- the tenant -------------------------------------------------------------------------------------


class TenantLimitsOut(DeferredModel):
    """The file memory limits that hold for the tenant."""

    memory_bytes: int = Field(serialization_alias="memoryBytes")
    memories_per_agent: int = Field(serialization_alias="memoriesPerAgent")
    index_lines: int = Field(serialization_alias="memoryIndexLines")
    index_bytes: int = Field(serialization_alias="memoryIndexBytes")
    expired_retention: str = Field(
        serialization_alias="expiredRetention",
        description="How long an expired record stays readable before it is purged with its "
        "versions (ISO 8601 duration).",
    )


# -- tools ------------------------------------------------------------------------------------------


class ToolCallOut(DeferredModel):
    """A tool call's answer; the document names each tool's output (openapi_tools)."""

    output: JsonObject
