"""What was said just before a history event, the context it is indexed and embedded with: an
answer ("Yes, last week!") is found by what it answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..kernel.models import TurnStatus
from ..search import EmbedRequest, IndexDoc, entities
from .models import HistoryEvent, index_id, part_id

if TYPE_CHECKING:
    from ..store import Store

# An event's meaning is embedded with the CONTEXT_MESSAGES messages before it
# (CONTEXT_CHARS of each), and their words are indexed beside its own words at CONTEXT_WEIGHT of
# their weight (search.index). The event's own words stay what search_history returns. Measured
# on LoCoMo, benchmarks/RESULTS.md.
CONTEXT_CHARS = 150
CONTEXT_MESSAGES = 2
CONTEXT_WORD_CHARS = 1_000  # of each message before, in words
CONTEXT_TURNS = 3


def with_context(text: str, before: Sequence[str]) -> str:
    """What an event's meaning is embedded from: its text and the messages just before it."""
    if not before:
        return text
    said = " / ".join(" ".join(b.split())[:CONTEXT_CHARS] for b in before)
    return f"{text}\n(after: {said})"


def context_words(before: Sequence[str]) -> str:
    """The words an event is also found by: the messages just before it."""
    return "\n".join(" ".join(text.split())[:CONTEXT_WORD_CHARS] for text in before)


def event_doc(
    event: HistoryEvent,
    n: int,
    text: str,
    before: Sequence[str],
    preview: bool,
    embed: EmbedRequest | None = None,
) -> IndexDoc:
    """Part `n` of `event` as a search document, found by `text` and (its first part only) by
    the words said `before` it. Both indexing paths build it here, so the documents the cloud's
    stream indexer writes and those the embedded commit writes cannot drift apart."""
    return IndexDoc(
        tenant=event.tenant,
        agent_id=event.agent_id,
        kind="event",
        id=part_id(index_id(event), n),
        version=1,
        text=text,
        context=context_words(before) if n == 1 else "",
        created_at=event.time,
        scope="session",
        session_id=event.session_id,
        preview=preview,
        turn_sequence=event.turn_sequence,
        embed=embed,
        entities=event_entities(event, text),
    )


def event_entities(event: HistoryEvent, text: str) -> tuple[str, ...]:
    """The entities of a part of `event`: those its text names, and who said it (a speaker the
    event's metadata names: a conversation's participant, not the agent or its user)."""
    speaker = event.metadata.get("speaker")
    return entities(text, speakers=[speaker] if isinstance(speaker, str) else [])


def said_before(
    store: Store,
    event: HistoryEvent,
    count: int = CONTEXT_MESSAGES,
    *,
    first_of_turn: bool = False,
) -> list[str]:
    """The texts of the `count` messages just before `event` in its session, oldest first:
    earlier events of its own turn, then the last ones of the nearest earlier committed turns (at
    most CONTEXT_TURNS back). A live event never takes a preview turn's words. `first_of_turn`:
    the caller knows no searchable event of its turn comes before it (its own turn is not read)."""
    committed: dict[str, bool] = {event.turn_id: True}
    said: list[str] = []
    start = event.turn_sequence - 1 if first_of_turn else event.turn_sequence
    for sequence in range(start, max(event.turn_sequence - CONTEXT_TURNS, 0) - 1, -1):
        found = store.session_events(
            event.tenant,
            event.agent_id,
            event.session_id,
            1_000,
            None,
            from_turn=sequence,
            to_turn=sequence,
        )
        for other in reversed(found):
            if (other.turn_sequence, other.sequence) >= (event.turn_sequence, event.sequence):
                continue
            if not (other.searchable and other.text.strip()):
                continue
            if other.preview and not event.preview:
                continue
            if other.turn_id not in committed:
                turn = store.get_turn(event.tenant, event.agent_id, event.session_id, other.turn_id)
                committed[other.turn_id] = turn is not None and turn.status is TurnStatus.COMMITTED
            if committed[other.turn_id]:
                said.append(other.text)
                if len(said) >= count:
                    return said[::-1]
    return said[::-1]
