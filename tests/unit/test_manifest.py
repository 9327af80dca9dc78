"""The manifest document: defaults, every validation rule, and label numbers across versions."""

import pytest

from agent_memory.domain.agents.service import parse_manifest
from agent_memory.domain.kernel.errors import InvalidRequest
from agent_memory.domain.manifests.manifest import Manifest, check_label_numbers

pytestmark = pytest.mark.unit


def memory(**fields):
    return {"harness": {"memory": fields}}


def test_without_a_memory_section_the_agent_has_no_memory():
    manifest = Manifest.model_validate({"harness": {"history": {}}})
    assert not manifest.memory_declared
    assert "memory" not in manifest.document()["harness"]
    # Stored and read back, it still declares none.
    assert not Manifest.model_validate(manifest.document()).memory_declared


def test_a_memory_section_gets_the_spec_defaults():
    manifest = Manifest.model_validate({"harness": {"memory": {}}})
    assert manifest.memory_declared
    document = manifest.document()
    mem = document["harness"]["memory"]
    assert mem["enabled"] is False
    assert mem["access"] == "read_write"
    assert mem["scope"] == {"read": ["session"], "write": ["session"]}
    assert mem["kinds"] == ["guidance", "fact", "event", "reference"]
    assert mem["search"] == {
        "mode": "hybrid",
        "max_results": 5,
        "min_score": None,
        "rerank": None,
    }
    assert mem["extraction"] == {"prompt": None, "every": "turn", "approval": "auto"}
    assert mem["pinned"] is None
    assert mem["tools"] == []
    assert document["harness"]["history"] == {
        "index": None,
        "search": "session",
        "fact_keys": None,
        "entity_links": False,
    }


def test_the_scenario_manifest_is_accepted_as_written():
    manifest = parse_manifest(
        {
            "harness": {
                "memory": {
                    "enabled": True,
                    "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
                    "labels": {"customer_id": {"number": 5, "description": "The customer."}},
                    "pinned": {"max_tokens": 2000},
                    "extraction": {"every": {"messages": 4}, "prompt": "Keep decisions."},
                    "search": {"mode": "lexical", "max_results": 8, "min_score": -0.5},
                    "tools": ["add_memory", "delete_memory"],
                },
                "history": {"index": "messages_and_tools"},
                "instructions": ["Help the team ship releases."],
            },
            "name": "releases",
        }
    )
    assert manifest.harness.memory.labels["customer_id"].number == 5
    assert manifest.harness.memory.extraction.every.messages == 4  # type: ignore[union-attr]
    # Fields of the harness this service does not interpret are kept as given.
    assert manifest.document()["harness"]["instructions"] == ["Help the team ship releases."]
    assert manifest.document()["name"] == "releases"


@pytest.mark.parametrize(
    ("document", "field"),
    [
        (memory(labels={"a": {"number": 4}}), "labels.a.number"),
        (memory(labels={"a": {"number": 19}}), "labels.a.number"),
        (memory(labels={"a": {"number": 5}, "b": {"number": 5}}), "labels"),
        (memory(labels={"Bad-Name": {"number": 5}}), "labels"),
        (memory(instructions="x" * 4097), "instructions"),
        (memory(scope={"read": ["team"]}), "scope.read"),
        (memory(scope={"write": ["agent", "agent"]}), "scope.write"),
        (memory(access="write_only"), "access"),
        (memory(search={"mode": "semantic"}), "search.mode"),
        (memory(search={"max_results": 0}), "search.max_results"),
        (memory(search={"min_score": 1.5}), "search.min_score"),
        (memory(extraction={"every": "session"}), "extraction.every"),
        (memory(extraction={"every": {"messages": 0}}), "extraction.every"),
        (memory(kinds=[]), "kinds"),
        (memory(kinds=["fact", "fact"]), "kinds"),
        (memory(pinned={"max_tokens": 0}), "pinned.max_tokens"),
        (memory(tools=["drop_table"]), "tools"),
        (memory(max_result=3), "max_result"),
        ({"harness": {"history": {"index": "everything"}}}, "history.index"),
        ({"harness": "yes"}, "harness"),
    ],
)
def test_each_invalid_field_is_a_400_that_names_it(document, field):
    with pytest.raises(InvalidRequest) as caught:
        parse_manifest(document)
    assert caught.value.status == 400
    assert caught.value.code == "invalid_manifest"
    assert any(field in problem["field"] for problem in caught.value.details["problems"])


def test_instructions_of_exactly_4096_characters_are_accepted():
    assert len(parse_manifest(memory(instructions="x" * 4096)).harness.memory.instructions) == 4096


def test_a_document_that_is_not_an_object_is_refused():
    with pytest.raises(InvalidRequest, match="JSON object"):
        parse_manifest(["harness"])


def test_a_label_keeps_its_number_and_new_labels_may_be_added():
    before = parse_manifest(memory(labels={"customer_id": {"number": 5}}))
    grown = parse_manifest(memory(labels={"customer_id": {"number": 5}, "region": {"number": 6}}))
    check_label_numbers(before, grown)  # adding is fine

    renumbered = parse_manifest(memory(labels={"customer_id": {"number": 7}}))
    with pytest.raises(InvalidRequest) as caught:
        check_label_numbers(before, renumbered)
    assert caught.value.code == "label_renumbered"

    dropped = parse_manifest(memory(labels={"region": {"number": 6}}))
    with pytest.raises(InvalidRequest) as caught:
        check_label_numbers(before, dropped)
    assert caught.value.code == "label_removed"
