"""What a post-turn review reads: the window of messages no finished review has read (whole
turns, oldest first, while they fit), whether another review read some of them meanwhile, and
each candidate's neighbours (the memories the review may change)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..history import HistoryEvent
from ..kernel.models import Extraction, Turn, TurnStatus
from ..manifests import MemoryConfig
from ..records import RecordQuery, RecordService, rank_lexical
from ..turns import Caller, TurnContext
from ..usage import UsageEntry
from .model import Candidate, Existing, Message
from .pipeline import window

if TYPE_CHECKING:
    from ..store import Store

# Events read to count the messages added since the last review ({"messages": N}).
COUNT_LIMIT = 10_000
# Each candidate is shown its NEIGHBOURS most similar memories, plus up to RECENT_SHOWN of the
# RECENT newest records that share words with it.
NEIGHBOURS = 5
RECENT = 20
RECENT_SHOWN = 2


def unread(store: Store, turn: Turn, events: list[HistoryEvent]) -> list[HistoryEvent]:
    """The events among `events` of committed live turns no finished review has read."""
    is_unread: dict[str, bool] = {}
    kept = []
    for event in events:
        if event.turn_id not in is_unread:
            other = store.get_turn(turn.tenant, turn.agent_id, turn.session_id, event.turn_id)
            is_unread[event.turn_id] = (
                other is not None
                and other.status is TurnStatus.COMMITTED
                and not other.preview
                and not other.reviewed
            )
        if is_unread[event.turn_id]:
            kept.append(event)
    return kept


def read_window(
    store: Store, turn: Turn, state: Extraction, max_messages: int, max_turns: int
) -> tuple[list[Message], list[str], int]:
    """The messages a review reads, the ids of the turns they come from, and the last turn
    sequence the review covers. They are the messages of the session's committed live
    turns in (from_turn, through] that no finished review has read, oldest first, whole
    turns while they fit in `max_messages` and `max_turns` (a turn alone larger than that: its
    first `max_messages`); what does not fit is left for the next review."""
    events = store.session_events(
        turn.tenant,
        turn.agent_id,
        turn.session_id,
        COUNT_LIMIT,
        None,
        from_turn=state.from_turn + 1,
        to_turn=state.through,
    )
    groups: dict[str, list[HistoryEvent]] = {}
    for event in unread(store, turn, events):
        groups.setdefault(event.turn_id, []).append(event)
    messages: list[Message] = []
    read: list[str] = []
    through = state.through
    for turn_id, turn_events in sorted(groups.items(), key=lambda g: g[1][0].turn_sequence):
        some = window(turn_events)
        if not some:
            continue
        if read and (len(messages) + len(some) > max_messages or len(read) >= max_turns):
            through = turn_events[0].turn_sequence - 1
            break
        messages += some[:max_messages]
        read.append(turn_id)
    return messages, read, max(through, state.from_turn)


def read_meanwhile(store: Store, turn: Turn, read: Sequence[str]) -> bool:
    """Whether a finished review has read any of the turns `read` names since this one began."""
    for turn_id in read:
        other = store.get_turn(turn.tenant, turn.agent_id, turn.session_id, turn_id)
        if other is not None and other.reviewed:
            return True
    return False


def neighbours(
    records: RecordService, memory: MemoryConfig, turn: Turn, candidates: Sequence[Candidate]
) -> tuple[dict[int, list[Existing]], list[UsageEntry]]:
    """Each candidate's most similar active memories among those the review may change, and
    the embedding calls made to find them."""
    ctx = TurnContext(
        turn=turn,
        memory=memory,
        caller=Caller(role="agent"),
        root_turn=turn,  # only a tool call that stages writes needs its replay chain's root
    )
    write = memory.scope.write
    query = RecordQuery(
        include_agent="agent" in write,
        session_id=turn.session_id if "session" in write else None,
    )
    # The newest records straight from the store too: a search index fed from the stream
    # (the cloud) may not hold what the session's last reviews wrote a moment ago.
    recent = records.view.find(ctx, query, RECENT)
    found: dict[int, list[Existing]] = {}
    for index, candidate in enumerate(candidates):
        text = candidate.summary + (f"\n{candidate.content}" if candidate.content else "")
        ranked = records.ranked(ctx, text, query, NEIGHBOURS)
        shown = {r.id for r in ranked}
        ranked += [r for r in rank_lexical(text, recent) if r.id not in shown][:RECENT_SHOWN]
        found[index] = [
            Existing(id=r.id, summary=r.summary, content=r.content, kind=r.kind) for r in ranked
        ]
    return found, ctx.usage
