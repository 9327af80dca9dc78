"""A history event as the embedded store keeps it: `to_doc_json` is `to_doc` as JSON text."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from agent_memory.domain.history.models import HistoryEvent, ToolCall


def event(**changes) -> HistoryEvent:
    fields = {
        "tenant": "t\u00e9nant",
        "agent_id": "teams/web",
        "session_id": "s-1",
        "turn_id": "t-1",
        "turn_sequence": 3,
        "id": "t-1.0001",
        "sequence": 1,
        "role": "user",
        "text": 'caf\u00e9 "quoted", a \\ backslash,\na second line \u2603',
        "time": datetime(2026, 12, 2, 6, 40, 1, 123456, tzinfo=UTC),
        "metadata": {"dia_id": "D1:3", "note": "\u00fcber"},
    }
    return HistoryEvent(**{**fields, **changes})


def test_the_json_text_of_an_event_reads_back_as_its_doc():
    # Given events with non-ASCII text, quotes, newlines, a tool call and no optional fields
    events = [
        event(),
        event(
            role="assistant",
            tool_calls=[ToolCall(name="search_memory", call_id="c1")],
            preview=True,
            searchable=False,
        ),
        event(metadata={}, text=""),
    ]
    for e in events:
        # When it is written as JSON text, then that text reads back as to_doc() exactly
        assert json.loads(e.to_doc_json()) == e.to_doc()
        # And the event read from it is the event written
        assert HistoryEvent.model_validate(json.loads(e.to_doc_json())) == e
