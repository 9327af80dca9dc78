"""What an execution records of a tool call's input and output: the transcript, not the
memory, so it must fit one store item (DynamoDB: 400 KB) and read back at any depth."""

from __future__ import annotations

import json
from typing import Any

from ..records import Execution

# An execution is one DynamoDB item (400 KB at most). What it records of a tool's input and
# output is the transcript, not the memory: ten found records of 100 KB, or a record's content
# written in escapes, would not fit. Past this, long strings are cut where they are recorded
# (whole in the records, memories and events they belong to).
EXECUTION_MAX_BYTES = 150_000
KEPT_CHARS = 1_000


# A recorded value nested deeper than this is cut where it passes it: the API refuses bodies
# nested deeper than 64 levels, and an execution must read back (pydantic and json stop at
# some depth) whoever called the tool.
RECORDED_DEPTH = 64


def fitted(execution: Execution) -> Execution:
    """The execution as recorded: whole when it fits one item, else with long strings cut;
    nested no deeper than RECORDED_DEPTH either way."""
    shallow = {"input": _flat(execution.input), "output": _flat(execution.output)}
    size = len(json.dumps(shallow["input"])) + len(json.dumps(shallow["output"]))
    if size > EXECUTION_MAX_BYTES:
        shallow = {key: _cut(value) for key, value in shallow.items()}
    return execution.model_copy(update=shallow)


def _flat(value: Any, depth: int = 0) -> Any:
    if depth >= RECORDED_DEPTH and isinstance(value, dict | list):
        return f"(nested deeper than {RECORDED_DEPTH} levels, cut in this record)"
    if isinstance(value, dict):
        return {k: _flat(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_flat(v, depth + 1) for v in value]
    return value


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > KEPT_CHARS:
        return f"{value[:KEPT_CHARS]}... ({len(value)} characters, cut in this record)"
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut(v) for v in value]
    return value
