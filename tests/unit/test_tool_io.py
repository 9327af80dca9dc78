"""The tools' input and output models: the memory tool's model refuses what the command refuses,
with the reference's words; outputs dump to the API's JSON."""

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from agent_memory.domain.files.commands import MemoryToolError, run_command
from agent_memory.domain.files.io import MemoryIn, memory_input_error
from agent_memory.domain.kernel.errors import DomainError
from agent_memory.domain.records.io import MemoriesOut, RecordsOut
from agent_memory.domain.records.models import Record
from agent_memory.domain.tools.io import RecallIn

pytestmark = pytest.mark.unit


class NoFiles:
    def read(self, path: str) -> str | None:
        return None

    def list_under(self, folder: str) -> list[tuple[str, int]]:
        return []


def model_outcome(raw: Any) -> tuple[str, str] | None:
    """(code, message) the registry reports for `raw`, or None when the model takes it."""
    try:
        MemoryIn.model_validate(raw)
    except MemoryToolError as exc:
        return exc.code, exc.message
    except ValidationError as exc:
        error = memory_input_error(raw, exc.errors())
        return error.code, error.message
    return None


def command_outcome(raw: Any) -> tuple[str, str] | None:
    try:
        run_command(raw, NoFiles())
    except DomainError as exc:
        return exc.code, exc.message
    return None


BAD_CALLS = [
    {},
    {"command": None},
    {"command": "shred", "path": "/memories/a.md"},
    {"command": 7},
    {"command": "view"},
    {"command": "view", "path": 3},
    {"command": "view", "path": "/memories", "view_range": [1]},
    {"command": "view", "path": "/memories/a.md", "view_range": [True, 2]},
    {"command": "create", "path": "/memories/a.md"},
    {"command": "create", "path": "/memories/a.md", "file_text": None},
    {"command": "create", "path": "/etc/passwd"},
    {"command": "create", "path": "/etc/passwd", "file_text": 5},
    {"command": "str_replace", "path": "/memories/a.md", "new_str": "x"},
    {"command": "str_replace", "path": "/memories/a.md", "old_str": "a", "new_str": 1},
    {"command": "insert", "path": "/memories/a.md", "insert_line": "2", "insert_text": "x"},
    {"command": "insert", "path": "/memories/a.md", "insert_line": True, "insert_text": "x"},
    {"command": "insert", "path": "/memories/a.md", "insert_line": 1},
    {"command": "delete"},
    {"command": "rename", "old_path": "/memories/a.md"},
    {"command": "rename", "old_path": 1, "new_path": "/memories/b.md"},
]


@pytest.mark.parametrize("raw", BAD_CALLS)
def test_a_bad_memory_call_is_refused_by_the_model_as_the_command_refuses_it(raw):
    refused = model_outcome(raw)
    assert refused is not None
    assert refused == command_outcome(raw)


@pytest.mark.parametrize(
    "raw",
    [
        # Left out or null, new_str replaces with nothing (Hypothesis found null refused once).
        {"command": "str_replace", "path": "/memories/a.md", "old_str": "x", "new_str": None},
        {"command": "str_replace", "path": "/memories/a.md", "old_str": "x"},
        {"command": "view", "path": "/memories/a.md", "view_range": None},
    ],
)
def test_an_optional_parameter_left_out_or_null_is_taken_by_the_model_and_the_command(raw):
    assert model_outcome(raw) is None
    # The command reads the file next: a missing one is the only refusal left.
    assert command_outcome(raw)[0] == "memory.not_found"


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["", "x", "/memories/a.md", "/memories", "/etc/x.md", "../a.md"]),
    st.lists(st.integers(-2, 3), max_size=3),
)
calls = st.fixed_dictionaries(
    {},
    optional={
        "command": st.one_of(
            st.sampled_from(["view", "create", "str_replace", "insert", "delete", "rename"]),
            values,
        ),
        "path": values,
        "file_text": values,
        "old_str": values,
        "new_str": values,
        "insert_line": values,
        "insert_text": values,
        "old_path": values,
        "new_path": values,
        "view_range": values,
    },
)


@settings(max_examples=400, deadline=None)
@given(calls)
def test_any_memory_call_the_model_refuses_the_command_refuses_in_the_same_words(raw):
    refused = model_outcome(raw)
    outcome = command_outcome(raw)
    if refused is not None:
        assert outcome == refused
    else:
        # What the model takes, the command may still refuse, but never for its parameters.
        assert outcome is None or outcome[0] != "memory.invalid_command"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "recall needs the turn's current context as a non-empty string"),
        ({"context": "  "}, "recall needs the turn's current context as a non-empty string"),
        ({"context": 5}, "recall needs the turn's current context as a non-empty string"),
        ({"context": "x" * 200_001}, "context is at most 200000 characters"),
    ],
)
def test_recall_refuses_a_missing_empty_or_long_context_with_invalid_context(body, message):
    with pytest.raises(DomainError) as raised:
        RecallIn.model_validate(body)
    assert (raised.value.status, raised.value.code, raised.value.message) == (
        400,
        "invalid_context",
        message,
    )


def record() -> Record:
    return Record.model_validate(
        {
            "tenant": "t",
            "agent_id": "a",
            "id": "rec_1",
            "scope": "agent",
            "summary": "staging is db-2",
            "kind": "fact",
            "provenance": {"actor": "agent"},
            "created_at": "2026-12-01T00:00:00Z",
            "updated_at": "2026-12-01T00:00:00Z",
        }
    )


def test_an_output_dumps_camel_case_and_leaves_out_optional_parts_left_unset():
    found = RecordsOut(records=[record()], next=None)
    assert list(found.dump()) == ["records", "next"]
    assert found.dump()["records"][0] == record().model_dump(mode="json", by_alias=True)
    assert "notFound" in RecordsOut(records=[], next=None, not_found=["rec_2"]).dump()
    assert list(MemoriesOut(memories=[record()]).dump()) == ["memories"]
