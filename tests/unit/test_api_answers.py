"""The answer models give the JSON the services built, key for key: optional parts only when
set, and a key no model declares is an error rather than lost."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import BaseModel, ValidationError

from agent_memory.api.answers import (
    AppendOut,
    HistoryHit,
    MemorySummary,
    PutMemoryOut,
    SearchHits,
    TenantLimitsOut,
)
from agent_memory.domain.files.models import FileMemory
from agent_memory.domain.files.service import FileLimits

pytestmark = pytest.mark.unit

MEMORY = FileMemory(
    tenant="acme",
    agent_id="a",
    path="/memories/notes.md",
    content="hello",
    bytes=5,
    content_sha256="0" * 64,
    version=1,
    updated_at=datetime(2026, 1, 2, tzinfo=UTC),
    updated_by="app",
)


def dumped(model: BaseModel) -> object:
    return model.model_dump(mode="json", by_alias=True)


def test_an_append_without_secrets_answers_no_secrets_key():
    answer = {"kept": 2, "dropped": 0, "ids": ["e1", "e2"]}
    assert dumped(AppendOut.model_validate(answer)) == answer


def test_an_append_with_secrets_lists_them():
    flagged = {"sequence": 1, "field": "text", "kind": "aws_key", "line": 1, "redacted": True}
    answer = {"kept": 1, "dropped": 0, "ids": ["e1"], "secrets": [flagged]}
    assert dumped(AppendOut.model_validate(answer)) == answer


def test_an_answer_with_a_key_no_model_declares_is_refused():
    with pytest.raises(ValidationError):
        AppendOut.model_validate({"kept": 1, "dropped": 0, "ids": [], "surprise": 1})


def test_a_written_memory_has_warnings_only_when_something_looked_like_a_secret():
    plain = dumped(PutMemoryOut.model_validate({**dict(MEMORY), "warnings": None}))
    assert plain == MEMORY.model_dump(mode="json", by_alias=True)
    warned = {"code": "memory.secret_detected", "field": "content", "kind": "aws_key", "line": 1}
    answer = dumped(PutMemoryOut.model_validate({**dict(MEMORY), "warnings": [warned]}))
    assert answer == {**MEMORY.model_dump(mode="json", by_alias=True), "warnings": [warned]}


def test_a_listed_memory_is_the_memory_without_its_content():
    assert dumped(MemorySummary.model_validate(dict(MEMORY))) == MEMORY.summary()


def test_a_history_hit_names_the_call_only_for_a_tool_result():
    hit = {
        "id": "ev1",
        "session": "s1",
        "turn": 1,
        "turnId": "t1",
        "part": 1,
        "parts": 1,
        "text": "user: hi",
        "execution": None,
        "sequence": 1,
        "role": "user",
        "time": "2026-01-02T00:00:00+00:00",
    }
    assert dumped(HistoryHit.model_validate(hit)) == hit
    result = {**hit, "role": "tool_result", "call": "c1"}
    assert dumped(HistoryHit.model_validate(result)) == result


def test_search_hits_keep_each_type_of_hit_as_it_was():
    hits = {
        "hits": [
            {
                "type": "memory",
                "score": 0.5,
                "path": "/memories/notes.md",
                "version": 1,
                "contentSha256": "0" * 64,
                "description": None,
                "updatedAt": "2026-01-02T00:00:00+00:00",
            },
            {
                "type": "record",
                "score": 0.25,
                "id": "r1",
                "version": 2,
                "kind": "fact",
                "scope": "agent",
                "sessionId": None,
                "summary": "s",
                "labels": {},
            },
        ]
    }
    assert dumped(SearchHits.model_validate(hits)) == hits


def test_tenant_limits_answer_in_camel_case():
    assert dumped(TenantLimitsOut.model_validate(FileLimits(), from_attributes=True)) == {
        "memoryBytes": 100 * 1024,
        "memoriesPerAgent": 10_000,
        "memoryIndexLines": 200,
        "memoryIndexBytes": 25 * 1024,
        "expiredRetention": "P30D",
    }
