"""Session history: append a turn's events, keep what harness.history.index says once the turn
commits, search it with the search_history tool, and page or export it for apps."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import Conflict, InvalidRequest, NotFound, problems_text
from ..history import (
    MEMORY_TOOL,
    MEMORY_VIEW,
    EventIn,
    HistoryEvent,
    event_id,
    kept,
    part_id,
)
from ..models import Turn, TurnStatus, utcnow
from ..paging import check_limit, decode_cursor, encode_cursor, int_pair_field
from ..ports import PreconditionFailed, Store
from ..retry import TryAgain, optimistic
from ..search.index import EmbedRequest, IndexDoc
from ..search.service import SearchService
from ..secrets import SecretMode, redacted
from .turn_context import ManifestCache, turn_closed

MAX_EVENTS_PER_APPEND = 500
# Appends racing for the same sequences: each loser counts again.
_APPEND_ATTEMPTS = 5


class AppendIn(BaseModel):
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

    def append(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str, batch: AppendIn
    ) -> dict[str, Any]:
        """Keep a batch of the turn's events (as the manifest the turn runs says).

        An event's id is fixed by its turn and sequence. With `sequence`, an append is
        idempotent: sent again, it keeps nothing new; another event at a sequence already kept
        is a 409. Without it, each event takes the turn's next sequence: sent again, it is kept
        again. Appends at once never lose each other's events, and none lands once the turn has
        ended: that 409 turn_closed says `alreadyKept` (true when every event was kept before
        the turn ended, a batch delivered again; false when it came too late)."""
        try:
            return self._append(tenant, agent_id, session_id, turn_id, batch)
        except Conflict as exc:
            if exc.code == "turn_closed":
                exc.details["alreadyKept"] = self.kept_before_it_ended(
                    tenant, agent_id, session_id, turn_id, batch
                )
            raise

    def _append(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str, batch: AppendIn
    ) -> dict[str, Any]:
        given = [e.sequence for e in batch.events if e.sequence is not None]
        if len(set(given)) != len(given):
            raise InvalidRequest(
                "two events of the batch give the same sequence", code="invalid_events"
            )
        turn = self._open_turn(tenant, agent_id, session_id, turn_id)
        index, searchable = self._kept_as(turn)
        views = self._memory_views(turn, batch.events)
        mode = self._manifests.memory(turn).secrets
        flagged: dict[int, list[dict[str, Any]]] = {}
        pending = list(batch.events)
        ids: dict[int, str] = {}
        dropped = 0

        def append_once() -> dict[str, Any]:
            nonlocal pending, dropped
            existing = {
                e.sequence: e
                for e in self._store.turn_events(tenant, agent_id, session_id, turn_id)
            }
            next_sequence = max([*existing, *given], default=0) + 1
            writes: list[tuple[EventIn, HistoryEvent]] = []
            for raw in pending:
                sequence = raw.sequence if raw.sequence is not None else next_sequence
                if raw.sequence is None:
                    next_sequence += 1
                event = kept(raw, index, views)
                if event is None:
                    dropped += 1
                    continue
                event, found = guarded(mode, event)
                flagged[sequence] = [{"sequence": sequence, **f} for f in found]
                new = _event(turn, event, sequence, searchable)
                earlier = existing.get(sequence)
                if earlier is None:
                    writes.append((raw, new))
                elif _same(earlier, new):
                    ids[sequence] = earlier.id  # kept by an earlier send of this batch
                else:
                    raise Conflict(
                        f"sequence {sequence} of turn {turn_id!r} already holds another event",
                        code="event_conflict",
                        sequence=sequence,
                    )
            events = [e for _, e in writes]
            try:
                self._store.append_events(tenant, agent_id, session_id, events)
            except PreconditionFailed as exc:
                self._open_turn(tenant, agent_id, session_id, turn_id)  # 404 or 409 if so
                raise Conflict(
                    "the turn's events changed meanwhile; send them again", code="turn_busy"
                ) from exc
            # A sequence counted at the same moment by another append holds its event, not
            # this one's: what was lost goes again, at the sequences after it.
            stored = {
                e.id: e
                for e in self._store.get_events(
                    tenant, agent_id, session_id, [e.id for e in events]
                )
            }
            lost = {e.sequence for e in events if not _same(stored.get(e.id), e)}
            ids.update((e.sequence, e.id) for e in events if e.sequence not in lost)
            if not lost:
                answer: dict[str, Any] = {
                    "kept": len(ids),
                    "dropped": dropped,
                    "ids": [ids[n] for n in sorted(ids)],
                }
                listed = [f for n in sorted(ids) for f in flagged.get(n, [])]
                if listed:
                    answer["secrets"] = listed
                return answer
            if any(s in lost for s in given):
                raise Conflict(
                    f"another append kept other events at sequences {sorted(lost)} meanwhile",
                    code="event_conflict",
                )
            pending = [raw for raw, e in writes if e.sequence in lost]
            raise TryAgain

        # Only a lost sequence goes again (TryAgain); a lost write is the turn_busy above.
        return optimistic(
            append_once,
            attempts=_APPEND_ATTEMPTS,
            exhausted=lambda: Conflict(
                "the turn's events kept changing; send them again", code="turn_busy"
            ),
            retry_on=(),
        )

    def kept_before_it_ended(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str, batch: AppendIn
    ) -> bool:
        """Whether an append that found its turn ended had been kept before (a message
        delivered again) rather than coming too late: every event it gives a sequence, and
        each that history keeps is there."""
        turn = self._store.get_turn(tenant, agent_id, session_id, turn_id)
        if turn is None or any(e.sequence is None for e in batch.events):
            return False
        index, searchable = self._kept_as(turn)
        views = self._memory_views(turn, batch.events)
        mode = self._manifests.memory(turn).secrets
        wanted = {
            event_id(turn.id, e.sequence): _event(
                turn, guarded(mode, event)[0], e.sequence, searchable
            )
            for e in batch.events
            if e.sequence is not None and (event := kept(e, index, views)) is not None
        }
        found = {
            e.id: e for e in self._store.get_events(tenant, agent_id, session_id, sorted(wanted))
        }
        # The same events, not others at the same sequences.
        return all(_same(found.get(eid), event) for eid, event in wanted.items())

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
        if index is None and manifest.harness.memory.extracts:
            # Post-turn extraction reads the turn's messages even when history is not searchable.
            return "messages", False
        return index, index is not None

    def _open_turn(self, tenant: str, agent_id: str, session_id: str, turn_id: str) -> Turn:
        turn = self._store.get_turn(tenant, agent_id, session_id, turn_id)
        if turn is None:
            raise NotFound(f"turn {turn_id!r} does not exist", code="turn_not_found")
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
        before = said_before(self._store, events[0])
        said: list[list[str]] = []
        for event in events:
            said += [before] * len(event.parts)
            if event.text.strip():
                before = [*before, event.text][-CONTEXT_MESSAGES:]
        embedded = self._search.embedder is not None
        return [
            IndexDoc(
                tenant=turn.tenant,
                agent_id=turn.agent_id,
                kind="event",
                id=part_id(e.id, n),
                version=1,
                text=text,
                context=context_words(b) if n == 1 else "",
                created_at=e.time,
                scope="session",
                session_id=turn.session_id,
                preview=turn.preview,
                turn_sequence=turn.sequence,
                embed=EmbedRequest(
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
    ) -> dict[str, Any]:
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
        return {
            "events": [e.model_dump(mode="json", by_alias=True) for e in found],
            "next": next_cursor,
        }

    def export(self, tenant: str, agent_id: str, session_id: str, turns: list[Turn]) -> str:
        """The whole session as JSON Lines: each turn, then the events it kept."""
        lines = []
        for turn in turns:
            lines.append(
                json.dumps({"type": "turn", **turn.model_dump(mode="json", by_alias=True)})
            )
            for event in self._store.turn_events(tenant, agent_id, session_id, turn.id):
                lines.append(
                    json.dumps({"type": "event", **event.model_dump(mode="json", by_alias=True)})
                )
        return "\n".join(lines) + ("\n" if lines else "")


# What was said just before an event helps find it: an answer ("Yes, last week!") is found by
# what it answers. Its meaning is embedded with the CONTEXT_MESSAGES messages before it
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


def said_before(store: Store, event: HistoryEvent, count: int = CONTEXT_MESSAGES) -> list[str]:
    """The texts of the `count` messages just before `event` in its session, oldest first:
    earlier events of its own turn, then the last ones of the nearest earlier committed turns (at
    most CONTEXT_TURNS back). A live event never takes a preview turn's words."""
    committed: dict[str, bool] = {event.turn_id: True}
    said: list[str] = []
    for sequence in range(event.turn_sequence, max(event.turn_sequence - CONTEXT_TURNS, 0) - 1, -1):
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


def guarded(mode: SecretMode, event: EventIn) -> tuple[EventIn, list[dict[str, Any]]]:
    """The event as it is kept under `harness.memory.secrets`, and what was found in it (for
    the append's answer: `{"sequence", "field", "kind", "line", "redacted"}`). Under `block`
    each secret in its text and metadata is replaced by `[redacted:<kind>]` here, before the
    event is stored or indexed; under `warn` it is kept and only listed."""
    found: list[dict[str, Any]] = []
    fields = {"text": event.text, **{f"metadata.{k}": v for k, v in event.metadata.items()}}
    kept_as: dict[str, str] = {}
    for name, value in fields.items():
        kept_as[name], findings = redacted(mode, value)
        found.extend({"field": name, "kind": f.kind, "line": f.line} for f in findings)
    if not found:
        return event, []
    blocked = mode == "block"
    if blocked:
        metadata = {k: kept_as[f"metadata.{k}"] for k in event.metadata}
        event = event.model_copy(update={"text": kept_as["text"], "metadata": metadata})
    return event, [{**f, "redacted": blocked} for f in found]


def _event(turn: Turn, event: EventIn, sequence: int, searchable: bool) -> HistoryEvent:
    return HistoryEvent(
        tenant=turn.tenant,
        agent_id=turn.agent_id,
        session_id=turn.session_id,
        turn_id=turn.id,
        turn_sequence=turn.sequence,
        id=event_id(turn.id, sequence),
        sequence=sequence,
        role=event.role,
        text=event.text,
        tool_name=event.tool_name,
        call_id=event.call_id,
        tool_calls=event.tool_calls,
        execution_id=event.execution_id,
        time=event.time or utcnow(),
        metadata=event.metadata,
        preview=turn.preview,
        searchable=searchable,
    )


def _same(kept_event: HistoryEvent | None, event: HistoryEvent) -> bool:
    """The same event, sent again: everything but the time it was given when it had none."""
    if kept_event is None:
        return False
    ignore = {"time"}
    return kept_event.model_dump(exclude=ignore) == event.model_dump(exclude=ignore)
