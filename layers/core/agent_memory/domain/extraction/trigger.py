"""When a committed turn starts a post-turn review: memory enabled and writable, the turn
live, and the manifest's `every` met (every turn with a message, or once N messages were added
since the session's last review)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.models import Extraction, ExtractionStatus, Turn, utcnow
from ..manifests import MemoryConfig
from .pipeline import extraction_due, window
from .window import COUNT_LIMIT, unread

if TYPE_CHECKING:
    from ..store import Store


def planned(store: Store, memory: MemoryConfig, turn: Turn) -> Extraction | None:
    """At commit: the review this turn starts, or None. A preview turn never changes live
    memory, so it starts none."""
    if not memory.extracts or turn.preview:
        return None
    session = store.get_session(turn.tenant, turn.agent_id, turn.session_id)
    if session is None:
        return None
    since = session.reviewed_through
    every = memory.extraction.every
    own = window(store.turn_events(turn.tenant, turn.agent_id, turn.session_id, turn.id))
    added = len(own)
    if turn.sequence <= since:
        # Committed after a later turn's review finished: reviewed on its own, at once,
        # whatever `every` says (no later window starts before it).
        if not own:
            return None
        since = turn.sequence - 1
    elif every != "turn" and added < every.messages and turn.sequence - 1 > since:
        earlier = store.session_events(
            turn.tenant,
            turn.agent_id,
            turn.session_id,
            COUNT_LIMIT,
            None,
            from_turn=since + 1,
            to_turn=turn.sequence - 1,
        )
        added += len(window(unread(store, turn, earlier)))
        if not extraction_due(every, added):
            return None
    elif not extraction_due(every, added):
        return None
    return Extraction(
        status=ExtractionStatus.QUEUED,
        from_turn=since,
        through=turn.sequence,
        messages=added,
        queued_at=utcnow(),
    )


def unplanned(memory: MemoryConfig, turn: Turn) -> Extraction | None:
    """A review queued without counting (when `planned` could not read what it needed)."""
    if not memory.extracts or turn.preview:
        return None
    return Extraction(
        status=ExtractionStatus.QUEUED,
        from_turn=0,
        through=turn.sequence,
        queued_at=utcnow(),
    )
