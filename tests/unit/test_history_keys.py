"""Which facts become keys of which events (history_keys), and the key document they make."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_memory.domain.extraction.model import Candidate
from agent_memory.domain.history.keys import (
    MAX_KEYS,
    MAX_SOURCES,
    EventKeys,
    key_doc,
    proposed_keys,
)
from agent_memory.domain.history.models import HistoryEvent

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def event(n: int, dia_id: str | None = None, **more) -> HistoryEvent:
    return HistoryEvent(
        tenant="acme",
        agent_id="bot",
        session_id="s1",
        turn_id=f"trn_{n}",
        turn_sequence=n,
        id=f"evt_{n}",
        sequence=1,
        role="user",
        text=f"message {n}",
        time=T0,
        metadata={"dia_id": dia_id} if dia_id else {},
        **more,
    )


def fact(summary: str, *sources: str) -> Candidate:
    return Candidate(summary=summary, kind="fact", sources=list(sources))


def test_each_fact_keys_the_events_it_cites_by_their_message_ids():
    events = [event(1, "D1:1"), event(2), event(3, "D1:3")]
    keys = proposed_keys(events, [fact("Caroline paints", "D1:1", "evt_2"), fact("x y", "D1:3")])
    assert [(k.event_id, k.keys) for k in keys] == [
        ("evt_1", ("Caroline paints",)),
        ("evt_2", ("Caroline paints",)),
        ("evt_3", ("x y",)),
    ]
    assert (keys[0].session_id, keys[0].turn_id, keys[0].turn_sequence, keys[0].time) == (
        "s1",
        "trn_1",
        1,
        T0,
    )


def test_what_cannot_be_keyed_is_left_out():
    events = [event(1), event(2, preview=True), event(3, searchable=False)]
    # An id the review was not shown, a preview event, an event kept for extraction only.
    keys = proposed_keys(events, [fact("a fact", "evt_9", "evt_2", "evt_3")])
    assert keys == []


def test_repeats_are_kept_once_and_an_event_holds_at_most_max_keys():
    events = [event(1)]
    many = [fact(f"fact number {n}", "evt_1") for n in range(MAX_KEYS + 3)]
    [keys] = proposed_keys(events, [fact("same", "evt_1"), fact("  same ", "evt_1"), *many])
    assert keys.keys[0] == "same"
    assert len(keys.keys) == MAX_KEYS


def test_a_fact_citing_many_messages_keys_only_the_first_few():
    events = [event(n) for n in range(1, 8)]
    keys = proposed_keys(events, [fact("broad", *[f"evt_{n}" for n in range(1, 8)])])
    assert [k.event_id for k in keys] == [f"evt_{n}" for n in range(1, MAX_SOURCES + 1)]


def test_the_key_document_is_dated_as_the_event_and_versioned_by_the_review():
    keys = EventKeys("s1", "trn_1", 1, "evt_1", T0, ("one", "two"))
    reviewed = datetime(2024, 1, 1, tzinfo=UTC)
    doc = key_doc("acme", "bot", keys, reviewed, embed=True)
    assert (doc.id, doc.kind, doc.text, doc.created_at) == ("evt_1.k", "event", "one\ntwo", T0)
    assert (doc.session_id, doc.turn_sequence, doc.scope) == ("s1", 1, "session")
    assert doc.version == int(reviewed.timestamp() * 1_000_000)
    assert doc.embed is not None and doc.embed.turn_id == "trn_1"
    assert key_doc("acme", "bot", keys, reviewed, embed=False).embed is None


def test_keys_read_back_from_their_json_as_they_were():
    keys = EventKeys("s1", "trn_1", 4, "evt_1", T0, ("one",))
    assert EventKeys.from_json(keys.to_json()) == keys
