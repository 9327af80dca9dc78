"""The memory tool's input and output: each command's arguments as a model, and a bad input
answered in the word-for-word texts of Anthropic's reference."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    RootModel,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

from ..kernel.deferred import DeferredModel
from ..kernel.errors import InvalidRequest
from ..turns import ToolOut
from .commands import COMMAND_NAMES, MemoryToolError
from .paths import normalize_path
from .texts import text


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


class MemoryOut(ToolOut):
    """The memory tool: the reference's result text, and any secret warnings."""

    result: str
    warnings: list[dict[str, Any]] | None = None
