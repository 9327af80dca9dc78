"""Each native tool's input and output as models.

The tool registry (`ToolService.register`) keeps a tool's input and output model, validates a
call's arguments against the input model once, and hands the tool the model; the tool returns
its output model and the API turns it into JSON with `dump`. A tool's bad input keeps the error
it always had: the record tools' `memory.invalid_argument` listing every problem, the memory
tool's word-for-word texts of Anthropic's reference, recall's `invalid_context`.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    RootModel,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

from ..answers import HistoryHit
from ..files.commands import COMMAND_NAMES, MemoryToolError
from ..files.paths import normalize_path
from ..files.texts import text
from ..kernel.deferred import DeferredModel
from ..kernel.errors import InvalidRequest
from ..records.models import CONTENT_MAX_BYTES, LABEL_VALUE_MAX_CHARS, SUMMARY_MAX_CHARS, Record
from ..usage.models import Usage, UsageTotal

# -- record tools ------------------------------------------------------------------------------


class _ToolIn(DeferredModel):
    model_config = ConfigDict(extra="forbid")


class AddMemoryIn(_ToolIn):
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


class IdIn(_ToolIn):
    """read_memory's and delete_memory's input."""

    id: str = Field(min_length=1, max_length=128)


class SearchMemoryIn(_ToolIn):
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


# -- search_history ------------------------------------------------------------------------------

HISTORY_MAX_LIMIT = 50


class SearchHistoryIn(_ToolIn):
    query: str | None = Field(default=None, max_length=4096)
    ids: list[str] | None = Field(default=None, max_length=100)
    limit: StrictInt = Field(default=5, ge=1, le=HISTORY_MAX_LIMIT)
    cursor: str | None = Field(default=None, max_length=1024)


# -- recall ----------------------------------------------------------------------------------------

RECALL_CONTEXT_MAX_CHARS = 200_000


class RecallIn(DeferredModel):
    """The turn's current context (and who asks); other fields are ignored, as they always were."""

    context: str
    caller: Any = None  # checked as the turn's caller (parse_caller), as for every tool

    @model_validator(mode="before")
    @classmethod
    def _context(cls, data: Any) -> Any:
        # Raised as is (not a ValueError), so the route's 400 keeps its code and words.
        context = data.get("context") if isinstance(data, dict) else None
        if not isinstance(context, str) or not context.strip():
            raise InvalidRequest(
                "recall needs the turn's current context as a non-empty string",
                code="invalid_context",
            )
        if len(context) > RECALL_CONTEXT_MAX_CHARS:
            raise InvalidRequest(
                f"context is at most {RECALL_CONTEXT_MAX_CHARS} characters", code="invalid_context"
            )
        return data


# -- the memory tool -------------------------------------------------------------------------------


class _CommandIn(DeferredModel):
    # The reference tool ignores parameters a command does not read.
    model_config = ConfigDict(extra="ignore")


class _FileCommandIn(_CommandIn):
    path: StrictStr

    @field_validator("path")
    @classmethod
    def _normalized(cls, value: str) -> str:
        # The command checks the path before its other parameters: a bad path is reported first,
        # raised as is so its code (invalid_path) and text stay the reference's.
        try:
            normalize_path(value)
        except InvalidRequest as error:
            raise MemoryToolError("invalid_path", error.message) from error
        return value


class ViewIn(_CommandIn):
    command: Literal["view"]
    path: StrictStr
    view_range: tuple[StrictInt, StrictInt] | None = None


class CreateIn(_FileCommandIn):
    command: Literal["create"]
    file_text: StrictStr


class StrReplaceIn(_FileCommandIn):
    command: Literal["str_replace"]
    old_str: StrictStr
    # Left out or null, the command replaces with nothing: the model takes both as it does.
    new_str: StrictStr | None = ""


class InsertIn(_FileCommandIn):
    command: Literal["insert"]
    insert_line: StrictInt
    insert_text: StrictStr


class DeleteIn(_CommandIn):
    command: Literal["delete"]
    path: StrictStr


class RenameIn(_CommandIn):
    command: Literal["rename"]
    old_path: StrictStr
    new_path: StrictStr


MemoryCommand = Annotated[
    ViewIn | CreateIn | StrReplaceIn | InsertIn | DeleteIn | RenameIn,
    Field(discriminator="command"),
]
_ALLOWED = ", ".join(COMMAND_NAMES)


class MemoryIn(RootModel):  # type: ignore[type-arg]  # its type is `root`'s, below
    """One call of the memory tool: one of its six commands, told apart by `command`."""

    # Deferred as DeferredModel is (a RootModel is not one). `root` is annotated here rather
    # than as RootModel[MemoryCommand], a class of its own that pydantic would build at import.
    model_config = ConfigDict(defer_build=True)
    root: MemoryCommand

    @model_validator(mode="before")
    @classmethod
    def _known_command(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise MemoryToolError("memory.invalid_command", text("input.not_object"))
        name = data.get("command")
        if name is None:
            raise MemoryToolError(
                "memory.invalid_command", text("command.missing", allowed=_ALLOWED)
            )
        if name not in COMMAND_NAMES:
            raise MemoryToolError(
                "memory.invalid_command", text("command.unknown", name=name, allowed=_ALLOWED)
            )
        return data

    def arguments(self) -> dict[str, Any]:
        return self.root.model_dump()


def memory_input_error(raw: dict[str, Any], errors: list[Any]) -> MemoryToolError:
    """The reference's text for the first problem of a memory tool call (in the order the
    command reads its parameters, which is the order of its model's fields)."""
    first = errors[0]
    command = str(raw.get("command"))
    name = str(first["loc"][1]) if len(first["loc"]) > 1 else "command"
    if name == "view_range":
        return MemoryToolError("memory.invalid_command", text("view_range.shape"))
    if first["type"] == "missing" or first.get("input") is None:
        return MemoryToolError(
            "memory.invalid_command", text("parameter.missing", name=name, command=command)
        )
    kind = "an integer" if name == "insert_line" else "a string"
    return MemoryToolError(
        "memory.invalid_command",
        text("parameter.type", name=name, kind=kind, command=command),
    )


# -- outputs -----------------------------------------------------------------------------------------


class ToolOut(DeferredModel):
    """A tool's output. Optional parts appear in the JSON only when the tool set them."""

    model_config = ConfigDict(populate_by_name=True)

    def dump(self) -> dict[str, Any]:
        """The API form: camelCase, JSON types, without the optional parts left unset."""
        full: dict[str, Any] = json.loads(self.model_dump_json(by_alias=True))
        fields = type(self).model_fields
        kept = {
            field.alias or name
            for name, field in fields.items()
            if name in self.model_fields_set or field.default is not None
        }
        return {key: value for key, value in full.items() if key in kept}


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


class HistoryOut(ToolOut):
    """search_history: the events (or their parts) found, and a cursor."""

    events: list[HistoryHit]
    next: str | None = None


class MemoryOut(ToolOut):
    """The memory tool: the reference's result text, and any secret warnings."""

    result: str
    warnings: list[dict[str, Any]] | None = None


class RecallOut(ToolOut):
    """Recall: the records found, and the same as a fenced memory block for the model."""

    type: Literal["memory"] = "memory"
    records: list[Record]
    text: str


# -- around the tools ---------------------------------------------------------------------------


class PinnedLine(DeferredModel):
    """A pinned record the instructions list."""

    id: str
    version: int
    summary: str


class OfferedTool(DeferredModel):
    """A native tool as a model is offered it (domain/tools/offer.py)."""

    name: str
    description: str
    input_schema: dict[str, Any] = Field(serialization_alias="inputSchema")
    # Whether a call may change memory (MCP's readOnlyHint is its negation).
    writes: bool


class InstructionsOut(DeferredModel):
    """The memory part of a turn's instructions, the pinned records it lists, and the native
    tools the turn offers, their schemas narrowed to its manifest (domain/tools/offer.py)."""

    instructions: str
    pinned: list[PinnedLine]
    tools: list[OfferedTool] = Field(default_factory=list)


class UsagePage(DeferredModel):
    """An agent's model usage, newest first, a cursor, and its totals."""

    usage: list[Usage]
    next: str | None
    totals: list[UsageTotal]
