"""History events as items of the single table, and the items holding their ids (see items.py)."""

from __future__ import annotations

import json

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from ...domain.history.models import HistoryEvent
from . import keys
from .item_base import Item


class EventItem(Item):
    """One history event in (turn, sequence) order: `doc` is HistoryEvent.to_doc() as JSON, or,
    for an event too large for an item, absent while `blob_bucket` and `blob_key` name the S3
    object holding that JSON."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    turn_id = UnicodeAttribute()
    event_id = UnicodeAttribute()
    turn_sequence = NumberAttribute()
    sequence = NumberAttribute()
    role = UnicodeAttribute()
    doc = UnicodeAttribute(null=True)
    blob_bucket = UnicodeAttribute(null=True)
    blob_key = UnicodeAttribute(null=True)
    # How many search documents (parts) the event has: its removal names them all, even when
    # its text is in S3 (and perhaps gone already).
    parts = NumberAttribute(null=True)

    @classmethod
    def of(cls, tenant: str, agent_id: str, session_id: str, event: HistoryEvent) -> EventItem:
        # Keyed by the session it is written under, as SqliteStore keys its rows.
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.event_sk(event.turn_sequence, event.sequence, event.id),
            tenant=tenant,
            agent_id=agent_id,
            session_id=session_id,
            turn_id=event.turn_id,
            event_id=event.id,
            turn_sequence=event.turn_sequence,
            sequence=event.sequence,
            role=event.role,
            doc=event_doc(event),
            parts=len(event.parts),
        )


def event_doc(event: HistoryEvent) -> str:
    # Unescaped non-ASCII: text in any script costs its UTF-8 bytes, not six per character.
    return json.dumps(event.to_doc(), ensure_ascii=False)


def event_of_doc(doc: str | bytes) -> HistoryEvent:
    return HistoryEvent.model_validate(json.loads(doc))


class EventIdItem(Item):
    """Holds an event id of a session, naming the sort key of the event's item."""

    event_sk = UnicodeAttribute()
    turn_id = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, session_id: str, event: HistoryEvent) -> EventIdItem:
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.event_id_sk(event.id),
            event_sk=keys.event_sk(event.turn_sequence, event.sequence, event.id),
            turn_id=event.turn_id,
        )
