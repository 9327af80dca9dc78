"""The tools a manifest offers and their narrowed schemas (domain/tools/offer.py)."""

import pytest

from agent_memory.domain.manifests.manifest import Manifest
from agent_memory.domain.records.io import AddMemoryIn
from agent_memory.domain.tools.offer import base_schema, offered_tools

pytestmark = pytest.mark.unit


def offer(memory=None, history=None, *, has_history=True):
    harness = {}
    if memory is not None:
        harness["memory"] = memory
    if history is not None:
        harness["history"] = {"index": history}
    tools = offered_tools(Manifest.model_validate({"harness": harness}), has_history=has_history)
    return {t.name: t for t in tools}


def test_an_agent_without_memory_is_offered_nothing():
    assert offer() == {}


def test_a_declared_but_disabled_memory_offers_the_memory_tool_alone():
    assert sorted(offer({})) == ["memory"]


def test_the_listed_tools_are_offered_and_a_read_only_agent_gets_no_record_writes():
    tools = ["add_memory", "read_memory", "delete_memory"]
    writable = offer({"enabled": True, "tools": tools})
    assert sorted(writable) == [
        "add_memory",
        "delete_memory",
        "memory",
        "read_memory",
        "search_memory",
    ]
    read_only = offer({"enabled": True, "tools": tools, "access": "read_only"})
    assert sorted(read_only) == ["memory", "read_memory", "search_memory"]
    assert writable["add_memory"].writes and not writable["read_memory"].writes


def test_search_history_needs_an_index_and_a_session():
    memory = {"enabled": True}
    assert "search_history" in offer(memory, "messages")
    assert "search_history" not in offer(memory)
    assert "search_history" not in offer(memory, "messages", has_history=False)


def test_add_memory_without_labels_or_pins_takes_neither_and_keeps_the_models_required():
    add = offer({"enabled": True, "tools": ["add_memory"]})["add_memory"].input_schema
    assert "labels" not in add["properties"] and "pinned" not in add["properties"]
    assert "scope" not in add["properties"]  # scope.write defaults to ["session"]
    assert add["required"] == AddMemoryIn.model_json_schema()["required"]
    assert add["additionalProperties"] is False


def test_narrowing_leaves_the_base_schemas_as_they_were():
    before = base_schema("add_memory")
    offer({"enabled": True, "tools": ["add_memory"], "kinds": ["x"]})
    assert base_schema("add_memory") == before
    assert "scope" in before["properties"]
