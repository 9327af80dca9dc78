"""recall's input and output, and what the tool routes answer around the tools: a turn's
instructions, the tools it offers.

The other native tools' models are their capability's (records/io.py, files/io.py,
history/io.py) and named here too for the registry."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    Field,
    model_validator,
)

from ..kernel.deferred import DeferredModel
from ..kernel.errors import InvalidRequest
from ..kernel.records import Record
from ..turns import ToolOut

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


class RecallOut(ToolOut):
    """Recall: the records found, and the same as a fenced memory block for the model."""

    type: Literal["memory"] = "memory"
    records: list[Record]
    text: str


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
