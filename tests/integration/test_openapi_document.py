"""The OpenAPI document describes what every operation takes and gives, and every tool's input
and output."""

from __future__ import annotations

from typing import Any

import pytest

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings

pytestmark = pytest.mark.integration

# Every operation says what it answers and what body it takes: a route that answers or takes
# an untyped dict fails these tests.
TOOLS = ["add_memory", "read_memory", "delete_memory", "search_memory", "memory", "search_history"]


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("openapi")
    services = build_services(Settings(data_dir=data, embeddings="none", extraction_model="none"))
    try:
        return Api(services).openapi()
    finally:
        services.close()


def operations(document: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def typed(schema: dict[str, Any] | None) -> bool:
    """Whether `schema` says something of the JSON: a reference, or a shape beyond any object."""
    if not schema:
        return False
    if "$ref" in schema or "oneOf" in schema or "anyOf" in schema:
        return True
    if schema.get("type") == "object":
        return bool(schema.get("properties")) or schema.get("additionalProperties") is False
    return "type" in schema


def json_schema(part: dict[str, Any]) -> dict[str, Any] | None:
    schema: dict[str, Any] | None = (
        part.get("content", {}).get("application/json", {}).get("schema")
    )
    return schema


def test_every_operation_that_takes_a_body_says_what_it_takes(document):
    untyped = {
        name
        for name, operation in operations(document)
        if "requestBody" in operation and not typed(json_schema(operation["requestBody"]))
    }
    assert not untyped, f"operations that take any object: {sorted(untyped)}"


def test_every_operation_says_what_it_answers(document):
    untyped = set()
    for name, operation in operations(document):
        answers = {s: r for s, r in operation["responses"].items() if s.startswith("2")}
        assert answers, f"{name} documents no 2xx answer"
        if "204" in answers:
            continue  # no content
        if not any(typed(json_schema(r)) for r in answers.values()):
            untyped.add(name)
    assert not untyped, f"operations that answer any object: {sorted(untyped)}"


def test_every_tool_input_and_output_is_a_component_the_tool_route_names(document):
    components = document["components"]["schemas"]
    call = document["paths"][
        "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}/tools/{name}"
    ]["post"]
    body = json_schema(call["requestBody"])
    answer = json_schema(call["responses"]["200"])
    outputs = answer["properties"]["output"]["oneOf"]
    for tool in TOOLS:
        assert f"{tool}.input" in components and f"{tool}.output" in components
        assert {"$ref": f"#/components/schemas/{tool}.input"} in body["anyOf"]
        assert components[f"{tool}.output"] in outputs
    add = components[components["add_memory.input"]["$ref"].rsplit("/", 1)[1]]
    assert add["required"] == ["summary", "caller"]
    commands = components[components["memory.input"]["$ref"].rsplit("/", 1)[1]]
    assert sorted(commands["discriminator"]["mapping"]) == sorted(
        ["view", "create", "str_replace", "insert", "delete", "rename"]
    )


def test_recall_says_what_it_takes_and_gives(document):
    recall = document["paths"][
        "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}/recall"
    ]["post"]
    assert json_schema(recall["requestBody"]) == {"$ref": "#/components/schemas/ToolRecallIn"}
    assert json_schema(recall["responses"]["200"]) == {"$ref": "#/components/schemas/ToolRecallOut"}


def test_the_document_with_tools_is_valid_openapi(document):
    from openapi_spec_validator import validate

    validate(document)
