"""Session history: append a turn's events, keep what harness.history.index says once the turn
commits, search it with the search_history tool, and page or export it for apps."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import astuple
from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field, ValidationError

from ..kernel.deferred import DeferredModel
from ..kernel.errors import Conflict, InvalidRequest, NotFound, PreconditionFailed, problems_text
from ..kernel.models import Turn, TurnStatus
from ..kernel.paging import check_limit, decode_cursor, encode_cursor, int_pair_field
from ..kernel.retry import TryAgain, optimistic
from ..kernel.where import TurnRef
from ..search import EmbedRequest, IndexDoc, SearchService
from ..turns import ManifestCache, turn_closed
from .answers import AppendOut, HistoryPage
from .append import Appending, guarded, history_event, same_event
from .context import CONTEXT_MESSAGES, context_words, event_doc, said_before, with_context
from .models import MEMORY_TOOL, MEMORY_VIEW, EventIn, HistoryEvent, kept

if TYPE_CHECKING:
    from ..store import Store

# Where other modules found these before they had their own homes.
__all__ = ["AppendIn", "HistoryService", "context_words", "guarded", "said_before", "with_context"]

MAX_EVENTS_PER_APPEND = 500
# Appends racing for the same sequences: each loser counts again.
_APPEND_ATTEMPTS = 5


class AppendIn(DeferredModel):
    model_config = ConfigDict(extra="forbid")

    events: list[EventIn] = Field(min_length=1, max_length=MAX_EVENTS_PER_APPEND)

    @classmethod
    def parse(cls, body: object) -> AppendIn:
        """The batch an append's body gives; a bad one is a 400 invalid_events."""
        try:
            return cls.model_validate(body)
        except ValidationError as exc:
            problems = problems_text(exc.errors(include_url=False))
            raise InvalidRequest(f"invalid events: {problems}", code="invalid_events") from exc


class HistoryService:
    def __init__(self, store: Store, manifests: ManifestCache, search: SearchService) -> None:
        self._store = store
        self._manifests = manifests
        self._search = search

    # -- appending --------------------------------------------------------------------------

    def append(self, where: TurnRef, batch: AppendIn) -> AppendOut:
        """Keep a batch of the turn's events (as the manifest the turn runs says).

        An event's id is fixed by its turn and sequence. With `sequence`, an append is
        idempotent: sent again, it keeps nothing new; another event at a sequence already kept
        is a 409. Without it, each event takes the turn's next sequence: sent again, it is kept
        again. Appends at once never lose each other's events, and none lands once the turn has
        ended: that 409 turn_closed says `alreadyKept` (true when every event was kept before
        the turn ended, a batch delivered again; false when it came too late)."""
        try:
            return self._append(where, batch)
        except Conflict as exc:
            if exc.code == "turn_closed":
                exc.details["alreadyKept"] = self.kept_before_it_ended(where, batch)
            raise

    def _append(self, where: TurnRef, batch: AppendIn) -> AppendOut:
        given = [e.sequence for e in batch.events if e.sequence is not None]
        if len(set(given)) != len(given):
            raise InvalidRequest(
                "two events of the batch give the same sequence", code="invalid_events"
            )
        turn = self._open_turn(where)
        index, searchable = self._kept_as(turn)
        run = Appending(
            turn=turn,
            given=given,
            index=index,
            searchable=searchable,
            views=self._memory_views(turn, batch.events),
            mode=self._manifests.memory(turn).secrets,
            pending=list(batch.events),
        )

        def append_once() -> AppendOut:
            existing = {e.sequence: e for e in self._store.turn_events(*astuple(where))}
            writes = run.writes(existing)
            stored = self._write(turn, [e for _, e in writes])
            if run.settled(writes, stored):
                return run.answer()
            raise TryAgain

        # Only a lost sequence goes again (TryAgain); a lost write is _write's turn_busy.
        return optimistic(
            append_once,
            attempts=_APPEND_ATTEMPTS,
            hold=self._store.exclusive,
            exhausted=lambda: Conflict(
                "the turn's events kept changing; send them again", code="turn_busy"
            ),
            retry_on=(),
        )

    def _write(self, turn: Turn, events: list[HistoryEvent]) -> dict[str, HistoryEvent]:
        """Write the events, then read back what their ids hold: a sequence counted at the
        same moment by another append holds its event, not this one's (Appending.settled sends
        what was lost again, at the sequences after it). When the store wrote every one as
        given, that is what they hold, and nothing is read."""
        tenant, agent_id, session_id = turn.tenant, turn.agent_id, turn.session_id
        try:
            if self._store.append_events(tenant, agent_id, session_id, events):
                return {e.id: e for e in events}
        except PreconditionFailed as exc:
            self._open_turn(turn.ref)  # 404 or 409 if so
            raise Conflict(
                "the turn's events changed meanwhile; send them again", code="turn_busy"
            ) from exc
        ids = [e.id for e in events]
        return {e.id: e for e in self._store.get_events(tenant, agent_id, session_id, ids)}

    def kept_before_it_ended(self, where: TurnRef, batch: AppendIn) -> bool:
        """Whether an append that found its turn ended had been kept before (a message
        delivered again) rather than coming too late: every event it gives a sequence, and
        each that history keeps is there."""
        turn = self._store.get_turn(*astuple(where))
        if turn is None or any(e.sequence is None for e in batch.events):
            return False
        index, searchable = self._kept_as(turn)
        views = self._memory_views(turn, batch.events)
        mode = self._manifests.memory(turn).secrets
        wanted = {
            e.sequence: history_event(turn, guarded(mode, event)[0], e.sequence, searchable)
            for e in batch.events
            if e.sequence is not None and (event := kept(e, index, views)) is not None
        }
        # By sequence, not by id: an event kept before ids included the session has the older
        # form of its id.
        found = {e.sequence: e for e in self._store.turn_events(*astuple(where))}
        # The same events, not others at the same sequences.
        return all(same_event(found.get(n), event) for n, event in wanted.items())

    def _memory_views(self, turn: Turn, events: Sequence[EventIn]) -> frozenset[str]:
        """The execution ids (the caller's, and the service's own) of the turn's memory tool
        views, when the batch holds memory tool results naming an execution: what they
        answered is the agent's own retrieval, never kept."""
        if not any(e.tool_name == MEMORY_TOOL and e.execution_id for e in events):
            return frozenset()
        views: set[str] = set()
        for execution in self._store.list_executions(
            turn.tenant, turn.agent_id, turn.session_id, turn.id
        ):
            if execution.tool == MEMORY_TOOL and execution.input.get("command") == MEMORY_VIEW:
                views.add(execution.id)
                if execution.caller.get("execution"):
                    views.add(str(execution.caller["execution"]))
        return frozenset(views)

    def _kept_as(self, turn: Turn) -> tuple[str | None, bool]:
        """What the turn's manifest keeps of its events, and whether that is searchable."""
        manifest = self._manifests.manifest(turn)
        index = manifest.harness.history.index
        if turn.sessionless:
            # An agent without sessions has no history: a sessionless turn's messages are kept
            # only for its post-turn review, never searchable.
            return ("messages" if manifest.harness.memory.extracts else None), False
        if index is None and manifest.harness.memory.extracts:
            # Post-turn extraction reads the turn's messages even when history is not searchable.
            return "messages", False
        return index, index is not None

    def _open_turn(self, where: TurnRef) -> Turn:
        turn = self._store.get_turn(*astuple(where))
        if turn is None:
            raise NotFound(f"turn {where.turn_id!r} does not exist", code="turn_not_found")
        if turn.status is not TurnStatus.OPEN:
            raise turn_closed(turn)
        return turn

    # -- the turn's commit --------------------------------------------------------------------

    def docs_for_commit(self, turn: Turn) -> list[IndexDoc]:
        """The turn's events as search documents, one a part (embedded shape: indexed by words
        in the commit's own transaction, so only what a committed turn holds is ever
        searchable; their vectors follow from the background embedder)."""
        if not self._search.inline:
            return []
        events = [
            e
            for e in self._store.turn_events(turn.tenant, turn.agent_id, turn.session_id, turn.id)
            if e.searchable
        ]
        parts = [(e, n, text) for e in events for n, text in enumerate(e.parts, start=1)]
        if not parts:
            return []
        texts = [words for e in events for words in e.word_texts()]
        # Each part is found with the messages said before its event (with_context, above).
        # events[0] is the turn's first searchable event: nothing of the turn is said before it.
        before = said_before(self._store, events[0], first_of_turn=True)
        said: list[list[str]] = []
        for event in events:
            said += [before] * len(event.parts)
            if event.text.strip():
                before = [*before, event.text][-CONTEXT_MESSAGES:]
        embedded = self._search.embedder is not None
        return [
            event_doc(
                e,
                n,
                text,
                b,
                turn.preview,
                EmbedRequest(
                    with_context(e.meaning(part), b), session_id=turn.session_id, turn_id=turn.id
                )
                if embedded
                else None,
            )
            for (e, n, part), text, b in zip(parts, texts, said, strict=True)
        ]

    # -- management ---------------------------------------------------------------------------

    def page(
        self,
        tenant: str,
        agent_id: str,
        session_id: str,
        from_turn: int | None,
        to_turn: int | None,
        roles: set[str],
        limit: int | None,
        cursor: str | None,
    ) -> HistoryPage:
        """Kept events of committed turns, in order."""
        size = check_limit(limit)
        after = int_pair_field(decode_cursor(cursor), "after")
        found: list[HistoryEvent] = []
        committed: dict[str, bool] = {}
        while len(found) <= size:
            batch = self._store.session_events(
                tenant,
                agent_id,
                session_id,
                200,
                after,
                from_turn,
                to_turn,
            )
            for event in batch:
                after = (event.turn_sequence, event.sequence)
                if event.turn_id not in committed:
                    turn = self._store.get_turn(tenant, agent_id, session_id, event.turn_id)
                    committed[event.turn_id] = bool(turn and turn.status is TurnStatus.COMMITTED)
                if committed[event.turn_id] and (not roles or event.role in roles):
                    found.append(event)
                    if len(found) > size:
                        break
            if len(batch) < 200:
                break
        more = len(found) > size
        found = found[:size]
        next_cursor = (
            encode_cursor({"after": [found[-1].turn_sequence, found[-1].sequence]})
            if more and found
            else None
        )
        return HistoryPage(events=found, next=next_cursor)

    def export(self, tenant: str, agent_id: str, session_id: str, turns: list[Turn]) -> str:
        """The whole session as JSON Lines: each turn, the events it kept, then a
        `memory.updated` line for each of its calls that changed memory, in call order."""
        lines = []
        for turn in turns:
            head = turn.model_dump(mode="json", by_alias=True, exclude={"memory_updates"})
            lines.append(json.dumps({"type": "turn", **head}))
            for event in self._store.turn_events(tenant, agent_id, session_id, turn.id):
                lines.append(
                    json.dumps({"type": "event", **event.model_dump(mode="json", by_alias=True)})
                )
            for update in turn.memory_updates:
                body = update.model_dump(mode="json", by_alias=True, exclude_none=True)
                lines.append(json.dumps({"type": "memory.updated", "turnId": turn.id, **body}))
        return "\n".join(lines) + ("\n" if lines else "")
