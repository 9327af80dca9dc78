"""What a history search may show, and how it shows it: whether each turn met is committed (read
once a search), the candidates' events (read a batch at a time) and which replies answer which
messages among them, where a page starts (the cursor), what an app may see, and the shape of a
result (an event with the text of one of its parts)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from ..kernel.errors import InvalidRequest
from ..kernel.models import TurnStatus
from ..kernel.paging import decode_cursor, encode_cursor, int_field, str_field
from ..search import Ranked
from .answers import HistoryHit
from .models import HistoryEvent, event_of

if TYPE_CHECKING:
    from ..store import Store

# How deep a search looks for candidates it may return, at most (a cursor past it is not ours).
MAX_DEPTH = 800
# Candidates past the best ones whose events are read at once.
READ_AHEAD = 50

Visible = Callable[[HistoryEvent, "TurnCache"], bool]


@dataclass
class TurnCache:
    """Whether each turn met is committed (and when it ended), read once per search."""

    store: Store
    tenant: str
    agent_id: str
    seen: dict[tuple[str, str], tuple[bool, datetime | None]] = field(default_factory=dict)
    owners: dict[str, str | None] = field(default_factory=dict)

    def owner(self, session_id: str) -> str | None:
        """The subject that started the session (None: unknown, or the session is gone)."""
        if session_id not in self.owners:
            session = self.store.get_session(self.tenant, self.agent_id, session_id)
            self.owners[session_id] = session.owner if session is not None else None
        return self.owners[session_id]

    def committed(self, event: HistoryEvent) -> tuple[bool, datetime | None]:
        key = (event.session_id, event.turn_id)
        if key not in self.seen:
            turn = self.store.get_turn(self.tenant, self.agent_id, event.session_id, event.turn_id)
            done = turn is not None and turn.status is TurnStatus.COMMITTED
            self.seen[key] = (done, turn.ended_at if turn else None)
        return self.seen[key]


@dataclass(frozen=True)
class Position:
    """Where a page of a search starts: how many results came before it, for which query."""

    offset: int
    query: str

    @staticmethod
    def read(cursor: str | None, query: str) -> Position:
        position = decode_cursor(cursor)
        if position is None:
            return Position(0, query)
        offset = int_field(position, "offset")
        asked = str_field(position, "query")
        if offset is None or not 0 <= offset <= MAX_DEPTH:
            raise InvalidRequest("cursor is not one this service issued", code="invalid_cursor")
        if asked != query[:64]:
            raise InvalidRequest(
                "the cursor belongs to another query: send the query it came with",
                code="invalid_cursor",
            )
        return Position(offset, query)

    def next(self, count: int) -> str:
        return encode_cursor({"offset": self.offset + count, "query": self.query[:64]})


def visible_to_apps(from_time: datetime | None = None, to_time: datetime | None = None) -> Visible:
    """What an app's search shows: events kept as searchable by committed live turns, within
    the time window when one is given."""

    def visible(event: HistoryEvent, cache: TurnCache) -> bool:
        if not event.searchable or event.preview or not cache.committed(event)[0]:
            return False
        return (from_time is None or event.time >= from_time) and (
            to_time is None or event.time <= to_time
        )

    return visible


def found_part(event: HistoryEvent, part: int, parts: list[str]) -> HistoryHit:
    """A search result: the event with the text of one of its parts."""
    return HistoryHit(
        id=event.id,
        session=event.session_id,
        turn=event.turn_sequence,
        turn_id=event.turn_id,
        part=part,
        parts=len(parts),
        text=f"{event.heading()}\n{parts[part - 1]}",
        execution=event.execution_id,
        sequence=event.sequence,
        role=event.role,
        time=event.time.isoformat(),
        call=event.call_id if event.role in ("tool_result", "error") else None,
    )


def whole_event(event: HistoryEvent) -> HistoryHit:
    """A result that returns the event whole (search_history with ids)."""
    hit = found_part(event, 1, [event.searchable_text()])
    hit.parts = len(event.parts)
    return hit


class CandidateEvents:
    """The events of a search's candidates, read a batch at a time and kept for the search."""

    def __init__(self, store: Store, tenant: str, agent_id: str, session_id: str | None) -> None:
        self._store = store
        self._tenant = tenant
        self._agent_id = agent_id
        self._session_id = session_id
        self._found: dict[tuple[str, str], HistoryEvent | None] = {}

    def key(self, candidate: Ranked) -> tuple[str, str]:
        # A hit names its session; one searched within a session is of that session.
        return (candidate.session_id or self._session_id or "", event_of(candidate.id))

    def known(self, candidate: Ranked) -> bool:
        return self.key(candidate) in self._found

    def get(self, candidate: Ranked) -> HistoryEvent | None:
        return self._found.get(self.key(candidate))

    def read(self, candidates: list[Ranked]) -> None:
        """Read the events of `candidates` not read yet, one store call a session."""
        by_session: dict[str, list[str]] = {}
        for k in dict.fromkeys(map(self.key, candidates)):
            if k not in self._found:
                self._found[k] = None
                by_session.setdefault(k[0], []).append(k[1])
        for session_id, ids in by_session.items():
            for event in self._store.get_events(self._tenant, self._agent_id, session_id, ids):
                self._found[(session_id, event.id)] = event


def answered(ranked: list[Ranked], events: CandidateEvents) -> dict[str, str]:
    """The replies among the best READ_AHEAD candidates that the words said before them helped
    find, each -> the user message of its own turn it answers (the event just before it), where
    that is among them too: ranking.credit_answered gives that message part of the reply's
    context score. Their events are read in one go, and the page's walk reads them from there."""
    window = ranked[:READ_AHEAD]
    replies = [
        r
        for r in window
        if r.own is not None and r.lexical is not None and r.lexical > r.own and r.id.endswith(".1")
    ]
    if not replies:
        return {}
    events.read(window)
    # Each event's first part among them, by where the event is (not by an id made from that:
    # an event kept before ids included the session has the older form of its id).
    first_parts = {}
    for r in window:
        if r.id.endswith(".1") and (event := events.get(r)) is not None:
            first_parts[(event.session_id, event.turn_id, event.sequence)] = r
    out = {}
    for reply in replies:
        event = events.get(reply)
        if event is None or event.role != "assistant" or event.sequence < 2:
            continue
        message = first_parts.get((event.session_id, event.turn_id, event.sequence - 1))
        said = events.get(message) if message is not None else None
        if message is not None and said is not None and said.role == "user":
            out[reply.id] = message.id
    return out


def replies_among(ranked: list[Ranked], events: CandidateEvents) -> set[str]:
    """The candidates among the best READ_AHEAD that are parts of an assistant's events (for
    ranking.weigh_replies); their events are read in one go, and the page's walk reads them from
    there. Candidates past those keep their scores: each already scores below all of them."""
    window = ranked[:READ_AHEAD]
    events.read(window)
    return {
        r.id for r in window if (event := events.get(r)) is not None and event.role == "assistant"
    }
