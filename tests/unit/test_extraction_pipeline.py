"""The plain steps of a review: when it is due, its window, and decision validation."""

import logging
from datetime import UTC, datetime

import pytest

from agent_memory.adapters.models.rule_based import RuleBasedModel
from agent_memory.domain.extraction.model import Candidate, Decision, Existing
from agent_memory.domain.extraction.pipeline import (
    DEFAULT_INSTRUCTIONS,
    extraction_due,
    resolve_scope,
    validate,
    window,
)
from agent_memory.domain.history.models import HistoryEvent
from agent_memory.domain.manifests.manifest import EveryMessages

pytestmark = pytest.mark.unit

KINDS = ["guidance", "fact", "event", "reference"]


def event(sequence, role, text, turn=1, **extra):
    return HistoryEvent(
        tenant="t",
        agent_id="agent",
        session_id="s",
        turn_id=f"turn-{turn}",
        turn_sequence=turn,
        id=f"ev-{sequence}",
        sequence=sequence,
        role=role,
        text=text,
        time=datetime(2026, 1, 1, tzinfo=UTC),
        **extra,
    )


def test_window_is_the_user_and_assistant_messages_in_order():
    events = [
        event(4, "assistant", "later reply", turn=2),
        event(1, "user", "old", turn=1),
        event(2, "user", "hello", turn=1, metadata={"dia_id": "D1:3", "speaker": "Caroline"}),
        event(3, "tool_result", "42", turn=1, tool_name="calc"),
        event(5, "error", "boom", turn=2),
        event(6, "user", "   ", turn=2),
        event(7, "user", "a preview", turn=2, preview=True),
    ]
    messages = window([e for e in events if e.sequence > 1])
    assert [(m.role, m.text, m.id, m.speaker, m.turn) for m in messages] == [
        ("user", "hello", "D1:3", "Caroline", 1),
        ("assistant", "later reply", "ev-4", None, 2),
    ]
    assert [m.text for m in window(events)] == ["old", "hello", "later reply"]


def test_extraction_is_due_every_turn_or_every_n_messages():
    assert extraction_due("turn", 1)
    assert not extraction_due("turn", 0)
    assert not extraction_due(EveryMessages(messages=4), 3)
    assert extraction_due(EveryMessages(messages=4), 4)


def test_default_instructions_say_what_to_keep_and_never_secrets():
    text = DEFAULT_INSTRUCTIONS.lower()
    for word in ("first-person facts", "preferences", "decisions", "corrections", "never keep"):
        assert word in text
    assert "secrets" in text


CANDIDATES = [
    Candidate(summary="User lives in Berlin", kind="fact", correction=True),
    Candidate(summary="User likes jazz", kind="opinion"),
    Candidate(summary="User's customer is C-1", kind="fact", labels={"customer": "C-1"}),
    Candidate(summary="User's order is O-1", kind="fact", labels={"order_id": "O-1"}),
    Candidate(summary="User is a nurse", kind="fact", scope="agent"),
]


def test_decisions_naming_unknown_records_kinds_or_labels_are_dropped_with_reasons(caplog):
    decisions = [
        Decision(candidate=0, action="replace", target="mem-404", reason="corrects"),
        Decision(candidate=1, action="add", reason="new"),
        Decision(candidate=2, action="add", reason="new"),
        Decision(candidate=3, action="add", reason="new"),
        Decision(candidate=4, action="delete", target="mem-1", reason="shown wrong"),
        Decision(candidate=9, action="add", reason="no such candidate"),
        Decision(candidate=4, action="add", reason="decided twice"),
        Decision(candidate=0, action="replace", reason="no target"),
    ]
    with caplog.at_level(logging.WARNING, logger="agent_memory.domain.extraction.pipeline"):
        valid, dropped = validate(
            decisions, CANDIDATES, {"mem-1", "mem-2"}, KINDS, {"customer"}, ["session"]
        )
    assert [(v.decision.candidate, v.decision.action, v.scope) for v in valid] == [
        (2, "add", "session"),
        (4, "delete", "session"),
    ]
    assert [(d.decision.candidate, d.reason) for d in dropped] == [
        (0, "unknown record mem-404"),
        (1, "unknown kind opinion"),
        (3, "unknown label order_id"),
        (9, "unknown candidate 9"),
        (4, "candidate 4 already decided"),
        (0, "replace names no record"),
    ]
    assert len([r for r in caplog.records if "decision dropped" in r.getMessage()]) == 6


def test_a_record_is_changed_once_and_skips_are_kept():
    decisions = [
        Decision(candidate=0, action="replace", target="mem-1"),
        Decision(candidate=4, action="replace", target="mem-1"),
        Decision(candidate=1, action="skip", target="mem-2"),
    ]
    valid, dropped = validate(decisions, CANDIDATES, ["mem-1", "mem-2"], KINDS, [], ["session"])
    assert [(v.decision.candidate, v.decision.action) for v in valid] == [
        (0, "replace"),
        (1, "skip"),
    ]
    assert [d.reason for d in dropped] == ["record mem-1 already changed by this review"]


def test_agent_scope_only_when_scope_write_includes_agent():
    add = [Decision(candidate=4, action="add")]
    [only_session], _ = validate(add, CANDIDATES, [], KINDS, [], ["session"])
    assert only_session.scope == "session"
    [with_agent], _ = validate(add, CANDIDATES, [], KINDS, [], ["session", "agent"])
    assert with_agent.scope == "agent"
    assert resolve_scope("session", ["session", "agent"]) == "session"
    assert resolve_scope(None, ["session", "agent"]) == "session"
    assert resolve_scope("agent", ["session", "agent"]) == "agent"
    assert resolve_scope("agent", ["session"]) == "session"
    assert resolve_scope(None, ["agent"]) == "agent"
    assert resolve_scope(None, ["session"]) == "session"
    assert resolve_scope("session", ["agent"]) == "agent"


def test_two_reviews_with_the_rule_based_model_do_not_pile_up_restated_facts():
    model = RuleBasedModel()
    events = [
        event(1, "user", "I live in Paris. I love jazz.", turn=1, metadata={"dia_id": "D1:1"}),
        event(2, "assistant", "Noted!", turn=1),
        event(
            3, "user", "I love jazz. Actually, I live in Lyon.", turn=2, metadata={"dia_id": "D2:1"}
        ),
    ]
    first = model.propose(window(events)[:2], DEFAULT_INSTRUCTIONS, KINDS, {}).value
    stored = [Existing(id=f"mem-{i}", summary=c.summary, kind=c.kind) for i, c in enumerate(first)]
    second = model.propose(
        window([e for e in events if e.sequence > 2]), DEFAULT_INSTRUCTIONS, KINDS, {}
    ).value
    assert [c.summary for c in second] == ["User loves jazz", "User lives in Lyon"]
    decided = model.decide(second, {i: stored for i in range(len(second))})
    valid, dropped = validate(decided.value, second, [e.id for e in stored], KINDS, [], ["session"])
    assert dropped == []
    assert [(v.decision.action, v.decision.target, v.candidate.sources) for v in valid] == [
        ("skip", "mem-1", ["D2:1"]),
        ("replace", "mem-0", ["D2:1"]),
    ]
