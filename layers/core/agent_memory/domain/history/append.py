"""One append of a turn's events, attempt by attempt: the sequence each event takes, what history
keeps of it (secrets guarded as harness.memory.secrets says), which events an earlier send of
the batch kept already, and which sequences a racing append took (those go again); then the
append's answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..kernel.errors import Conflict
from ..kernel.models import Turn, utcnow
from ..secrets import SecretMode, redacted
from .answers import AppendOut, KeptSecret
from .models import EventIn, HistoryEvent, event_id, kept


@dataclass
class Appending:
    """The state an append carries between its attempts."""

    turn: Turn
    given: list[int]  # the sequences the batch's events name
    index: str | None
    searchable: bool
    views: frozenset[str]
    mode: SecretMode
    pending: list[EventIn]
    flagged: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    ids: dict[int, str] = field(default_factory=dict)
    dropped: int = 0

    def writes(self, existing: dict[int, HistoryEvent]) -> list[tuple[EventIn, HistoryEvent]]:
        """The pending events to write, each with what history keeps of it, at its sequence
        (given, or the turn's next after `existing`). One an earlier send kept is not written
        again; another event at a kept sequence is a 409 event_conflict."""
        next_sequence = max([*existing, *self.given], default=0) + 1
        writes: list[tuple[EventIn, HistoryEvent]] = []
        for raw in self.pending:
            sequence = raw.sequence if raw.sequence is not None else next_sequence
            if raw.sequence is None:
                next_sequence += 1
            event = kept(raw, self.index, self.views)
            if event is None:
                self.dropped += 1
                continue
            event, found = guarded(self.mode, event)
            self.flagged[sequence] = [{"sequence": sequence, **f} for f in found]
            new = history_event(self.turn, event, sequence, self.searchable)
            earlier = existing.get(sequence)
            if earlier is None:
                writes.append((raw, new))
            elif same_event(earlier, new):
                self.ids[sequence] = earlier.id  # kept by an earlier send of this batch
            else:
                raise Conflict(
                    f"sequence {sequence} of turn {self.turn.id!r} already holds another event",
                    code="event_conflict",
                    sequence=sequence,
                )
        return writes

    def settled(
        self, writes: list[tuple[EventIn, HistoryEvent]], stored: dict[str, HistoryEvent]
    ) -> bool:
        """Whether every write holds its own event (`stored`, read back). Otherwise the lost
        ones are pending again, at later sequences; a lost sequence the batch gave is a 409."""
        events = [e for _, e in writes]
        lost = {e.sequence for e in events if not same_event(stored.get(e.id), e)}
        self.ids.update((e.sequence, e.id) for e in events if e.sequence not in lost)
        if not lost:
            return True
        if any(s in lost for s in self.given):
            raise Conflict(
                f"another append kept other events at sequences {sorted(lost)} meanwhile",
                code="event_conflict",
            )
        self.pending = [raw for raw, e in writes if e.sequence in lost]
        return False

    def answer(self) -> AppendOut:
        """What was kept (ids in sequence order), how many were dropped, and the secrets found."""
        listed = [f for n in sorted(self.ids) for f in self.flagged.get(n, [])]
        return AppendOut(
            kept=len(self.ids),
            dropped=self.dropped,
            ids=[self.ids[n] for n in sorted(self.ids)],
            secrets=[KeptSecret.model_validate(f) for f in listed] if listed else None,
        )


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


def history_event(turn: Turn, event: EventIn, sequence: int, searchable: bool) -> HistoryEvent:
    """The event as history keeps it: the turn's, at `sequence`."""
    return HistoryEvent(
        tenant=turn.tenant,
        agent_id=turn.agent_id,
        session_id=turn.session_id,
        turn_id=turn.id,
        turn_sequence=turn.sequence,
        id=event_id(turn.session_id, turn.id, sequence),
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


def same_event(kept_event: HistoryEvent | None, event: HistoryEvent) -> bool:
    """The same event, sent again: everything but the time it was given when it had none, and
    its id. Both are at the same place (session, turn, sequence), which is what the id is made
    of; an event kept before ids included the session has the older form of it."""
    if kept_event is None:
        return False
    if kept_event is event:  # what the store wrote as given (HistoryService._write)
        return True
    ignore = {"time", "id"}
    return kept_event.model_dump(exclude=ignore) == event.model_dump(exclude=ignore)
