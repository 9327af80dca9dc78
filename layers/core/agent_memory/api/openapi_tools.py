"""Each native tool's input and output in the OpenAPI document.

The tool-call route takes any JSON object and leaves its checking to the tool (so bad input is
the tool's own 4xx, with the tool's code and words, not the resolver's generic one); the
document would otherwise say nothing of what a tool takes and gives. This writes every
registered tool's input and output models into the document's components, named by tool, and
points the tool-call and recall routes' bodies and answers at them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, create_model
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from ..domain.tools.io import RecallIn, RecallOut
from ..domain.tools.service import Tool
from ..domain.turns.context import Caller

# The models' own schemas, apart from the ones the resolver writes for the routes (a record
# there and here may be named alike and differ: here it is the serialized form).
_PREFIX = "Tool"
_REF = "#/components/schemas/" + _PREFIX + "{model}"
TOOL_CALL = "/tools/{name}"
RECALL = "/recall"


def _with_caller(model: type[BaseModel]) -> type[BaseModel]:
    """The body the route takes: the tool's input plus `caller` (a model that takes no other
    fields would otherwise refuse it in the document)."""
    if model.model_config.get("extra") != "forbid":
        return model
    extended: type[BaseModel] = create_model(
        f"{model.__name__}Call", __base__=model, caller=(Caller, ...)
    )
    return extended


def _schemas(
    models: list[tuple[type[BaseModel], JsonSchemaMode]],
) -> tuple[dict[tuple[Any, JsonSchemaMode], dict[str, Any]], dict[str, Any]]:
    refs, top = models_json_schema(models, ref_template=_REF, by_alias=True)
    defs = {_PREFIX + name: schema for name, schema in top.get("$defs", {}).items()}
    return dict(refs), defs


def describe_tools(document: dict[str, Any], tools: dict[str, Tool]) -> None:
    """Write each tool's input and output into `document` (in place): components
    `<tool>.input` and `<tool>.output`, the tool-call route's body as any of the inputs and
    its answer's `output` as one of the outputs; recall's body and answer likewise."""
    bodies = {name: _with_caller(tool.input) for name, tool in tools.items()}
    wanted: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        *{(body, "validation") for body in bodies.values()},
        *{(tool.output, "serialization") for tool in tools.values()},
        (RecallIn, "validation"),
        (RecallOut, "serialization"),
    ]
    refs, defs = _schemas(wanted)
    components = document.setdefault("components", {}).setdefault("schemas", {})
    components.update(defs)
    for name, tool in tools.items():
        components[f"{name}.input"] = refs[(bodies[name], "validation")]
        components[f"{name}.output"] = refs[(tool.output, "serialization")]
    outputs = sorted({tool.output.__name__ for tool in tools.values()})
    for path, item in document.get("paths", {}).items():
        operation = item.get("post")
        if operation is None:
            continue
        if path.endswith(TOOL_CALL):
            # Any of, not one of: read_memory and delete_memory take the same input, and an
            # empty search fits either search tool; the path's tool name says which applies.
            _set_body(
                operation,
                {"anyOf": [{"$ref": f"#/components/schemas/{n}.input"} for n in sorted(tools)]},
            )
            output = {"oneOf": [{"$ref": _REF.format(model=o)} for o in outputs]}
            _set_answer(
                operation,
                {"type": "object", "properties": {"output": output}, "required": ["output"]},
            )
        elif path.endswith(RECALL):
            _set_body(operation, refs[(RecallIn, "validation")])
            _set_answer(operation, refs[(RecallOut, "serialization")])


def _set_body(operation: dict[str, Any], schema: dict[str, Any]) -> None:
    content = operation.setdefault("requestBody", {}).setdefault("content", {})
    content["application/json"] = {"schema": schema}


def _set_answer(operation: dict[str, Any], schema: dict[str, Any]) -> None:
    ok = operation.setdefault("responses", {}).setdefault("200", {"description": "OK"})
    ok["content"] = {"application/json": {"schema": schema}}
