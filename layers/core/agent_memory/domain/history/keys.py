"""Fact keys: what a post-turn review proposed from a message, kept as extra keys the message is
found by. A question phrased like the fact ("Where does the user work?") then finds the message
where it was said ("I started at the bakery last week") by words and by meaning, though the two
share few words. The keys find the event; the event is what a search returns.

Each event has at most one key document, `<event id>.k`, holding every fact the last review
that read it proposed from it (one a line). Its version is that review's time, so a later review
of the same message replaces the keys of an earlier one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from ..search import EmbedRequest, IndexDoc
from .models import HistoryEvent

KEY_PART = "k"
# At most MAX_KEYS facts find one event (the first proposed), each at most KEY_CHARS long.
MAX_KEYS = 8
KEY_CHARS = 500
# A fact citing many messages is a key of none of them in particular: the first MAX_SOURCES.
MAX_SOURCES = 3


def message_id(event: HistoryEvent) -> str:
    """The id a review's window gives the event's message, which candidates cite in `sources`:
    its `dia_id` metadata if it has one (LoCoMo), else the event id."""
    return event.metadata.get("dia_id") or event.id


def key_doc_id(event_id: str) -> str:
    return f"{event_id}.{KEY_PART}"


@dataclass(frozen=True)
class EventKeys:
    """The facts a review proposed from one event, with what its key document needs of the
    event (the cloud's stream indexer builds it from these alone)."""

    session_id: str
    turn_id: str
    turn_sequence: int
    event_id: str
    time: datetime
    keys: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "session": self.session_id,
            "turn": self.turn_id,
            "sequence": self.turn_sequence,
            "event": self.event_id,
            "time": self.time.isoformat(),
            "keys": list(self.keys),
        }

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> EventKeys:
        return EventKeys(
            session_id=str(raw["session"]),
            turn_id=str(raw["turn"]),
            turn_sequence=int(raw["sequence"]),
            event_id=str(raw["event"]),
            time=datetime.fromisoformat(str(raw["time"])),
            keys=tuple(str(k) for k in raw.get("keys") or ()),
        )


def keys_json(kept: Sequence[EventKeys]) -> str:
    """A turn's keys as the stores keep them: a JSON list, one entry an event."""
    return json.dumps([k.to_json() for k in kept])


def keys_from_json(raw: str | None) -> list[EventKeys]:
    """A turn's keys as a store kept them (none when it kept none)."""
    return [EventKeys.from_json(k) for k in json.loads(raw)] if raw else []


def keys_by_turn(keys: Iterable[EventKeys], read: Iterable[str]) -> dict[str, list[EventKeys]]:
    """The keys of each turn a review read (those of any other turn are not kept)."""
    turns = set(read)
    by_turn: dict[str, list[EventKeys]] = {}
    for each in keys:
        if each.turn_id in turns:
            by_turn.setdefault(each.turn_id, []).append(each)
    return by_turn


class CitedFact(Protocol):
    """A fact a review proposes and the messages it cites (a review's candidate)."""

    @property
    def summary(self) -> str: ...

    @property
    def sources(self) -> Sequence[str]: ...


def proposed_keys(
    events: Iterable[HistoryEvent], candidates: Sequence[CitedFact]
) -> list[EventKeys]:
    """Each searchable event's keys: the summaries of the candidates citing its message, in the
    order proposed, without repeats. Events no candidate cites have none; a source naming no
    event of `events` is ignored (the model may cite what it was not shown)."""
    by_message: dict[str, HistoryEvent] = {}
    for event in events:
        if event.searchable and not event.preview:
            by_message.setdefault(message_id(event), event)
    facts: dict[str, list[str]] = {}
    for candidate in candidates:
        fact = " ".join(candidate.summary.split())[:KEY_CHARS]
        for source in list(dict.fromkeys(candidate.sources))[:MAX_SOURCES]:
            cited = by_message.get(source)
            if cited is None:
                continue
            said = facts.setdefault(cited.id, [])
            if fact not in said and len(said) < MAX_KEYS:
                said.append(fact)
    chosen = {e.id: e for e in by_message.values()}
    return [
        EventKeys(
            session_id=chosen[event_id].session_id,
            turn_id=chosen[event_id].turn_id,
            turn_sequence=chosen[event_id].turn_sequence,
            event_id=event_id,
            time=chosen[event_id].time,
            keys=tuple(said),
        )
        for event_id, said in facts.items()
    ]


def key_doc(
    tenant: str, agent_id: str, keys: EventKeys, version: datetime, embed: bool
) -> IndexDoc:
    """The event's key document: found by its facts' words and (with `embed`) their meaning,
    dated as the event, versioned by the review that proposed them."""
    text = "\n".join(keys.keys)
    return IndexDoc(
        tenant=tenant,
        agent_id=agent_id,
        kind="event",
        id=key_doc_id(keys.event_id),
        version=int(version.timestamp() * 1_000_000),
        text=text,
        created_at=keys.time,
        scope="session",
        session_id=keys.session_id,
        turn_sequence=keys.turn_sequence,
        embed=EmbedRequest(text, session_id=keys.session_id, turn_id=keys.turn_id)
        if embed
        else None,
    )
