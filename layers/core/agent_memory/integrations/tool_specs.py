"""The native tools as a model sees them: name, description and input schema.

The input schemas are those of the models the service validates each tool's input with
(`AddMemoryIn`, `SearchMemoryIn`, `SearchHistoryIn`, ...), so what a framework offers its model
cannot drift from what the service accepts (`domain/tools/offer.py` holds them). These are the
schemas for any manifest; a turn's instructions (`GET .../instructions`, its `tools`) give
them narrowed to what the turn's manifest offers: its kinds, its labels with their
descriptions, and `scope` only where scope.write includes agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..domain.tools.offer import DESCRIPTIONS, WRITES, base_schema


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]
    # Whether a call may change memory (MCP's readOnlyHint is its negation).
    writes: bool


TOOLS: tuple[ToolSpec, ...] = tuple(
    ToolSpec(name, description, base_schema(name), writes=name in WRITES)
    for name, description in DESCRIPTIONS.items()
)

BY_NAME = {tool.name: tool for tool in TOOLS}
