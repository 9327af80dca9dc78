"""Session history on DynamoDB (a mixin of DynamoStore), mirroring SqliteHistory.

An event is two items in its session's partition (layout in keys.py): the event under
`EV#{turn}#{sequence}#{id}`, so a session's history is one Query in order, and a marker under
`EVID#{id}` naming that key, so reading by id is two BatchGetItems. Both are put under
attribute_not_exists in one TransactWriteItems with a check that the turn exists (SqliteStore's
foreign key) and the agent is live (nothing lands behind a delete's walk).

Appends are idempotent: the ids already kept are read first and left as they are. Writers racing
on the same id lose a condition, read again and skip what the winner kept. A batch goes in as
many transactions as DynamoDB's limits need (100 actions, 4 MB), each complete on its own, so a
failure part way leaves whole events that a retried append skips.

An event larger than an item can hold (400 KB; above _INLINE_MAX_BYTES here) keeps its document
in S3 (blobs.py), put before the transaction; its item names the object. Without a bucket such an
event is refused with PayloadTooLarge (event_too_large) before anything is written.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from pynamodb.connection import Connection
from pynamodb.exceptions import DoesNotExist

from ...domain.history.models import HistoryEvent
from ...domain.kernel.errors import PayloadTooLarge, PreconditionFailed, StorageUnavailable
from ...domain.kernel.models import TurnStatus
from ...domain.kernel.retry import TryAgain, optimistic
from . import keys
from .blobs import Blobs
from .history_items import EventIdItem, EventItem, event_of_doc
from .items import Items
from .records import AGENT, live_agent
from .transactions import (
    MAX_TRANSACTION_ACTIONS,
    MAX_TRANSACTION_BYTES,
    ConditionsFailed,
    Transaction,
    item_bytes,
    storage_errors,
)

# Items above this go to S3: DynamoDB's 400 KB counts names and values, item_bytes estimates
# generously, and the margin keeps the estimate safely below the limit.
_INLINE_MAX_BYTES = 350_000
# Rounds of "read what is kept, write the rest" before a lost race is reported.
_ATTEMPTS = 4
_TURN = "turn "


@dataclass(frozen=True)
class _Planned:
    """An event as it will be written: its items, and its document when S3 is to hold it."""

    event: HistoryEvent
    item: EventItem
    marker: EventIdItem
    blob: bytes | None
    bytes: int


class DynamoHistory:
    _items: Items
    _blobs: Blobs
    connection: Connection

    # -- writes ----------------------------------------------------------------------------------

    def append_events(
        self, tenant: str, agent_id: str, session_id: str, events: Sequence[HistoryEvent]
    ) -> bool:
        unique: dict[str, HistoryEvent] = {}
        for event in events:
            # As SqliteHistory's INSERT ... DO NOTHING: the first of a repeated id is the one kept.
            unique.setdefault(event.id, event)
        if not unique:
            return True
        pk = keys.session_pk(tenant, agent_id, session_id)
        self._check_turns(pk, unique.values())
        pending = list(unique.values())
        # Whether every event was written by this call (an id found kept may hold another's).
        all_written = len(unique) == len(events)

        def append_once() -> None:
            nonlocal pending, all_written
            kept = self._kept_ids(pk, [event.id for event in pending])
            all_written = all_written and not kept
            pending = [event for event in pending if event.id not in kept]
            if not pending:
                return
            planned = [self._plan(tenant, agent_id, session_id, event) for event in pending]
            try:
                for chunk in _chunks(planned):
                    self._append(tenant, agent_id, pk, chunk)
            except ConditionsFailed as exc:
                if any(label == AGENT or label.startswith(_TURN) for label in exc.failed):
                    raise PreconditionFailed(
                        "the turn does not exist or its agent is being deleted"
                    ) from exc
                raise TryAgain from exc  # another writer kept some of these ids first
            except PreconditionFailed as exc:
                raise TryAgain from exc  # a concurrent transaction touched the same items

        # Only TryAgain reads again: a missing turn or a deleted agent is the caller's answer.
        optimistic(
            append_once,
            attempts=_ATTEMPTS,
            exhausted=lambda: PreconditionFailed("history events changed concurrently; try again"),
            retry_on=(),
        )
        return all_written

    def _check_turns(self, pk: str, events: Iterable[HistoryEvent]) -> None:
        """Every turn the events name exists at the sequence they give it; refused before any
        write, so a missing turn keeps nothing even when the batch takes several transactions."""
        model = self._items.turn
        for turn_id, sequence in sorted({(e.turn_id, e.turn_sequence) for e in events}):
            with storage_errors():
                try:
                    turn = model.get(pk, keys.turn_sk(turn_id), consistent_read=True)
                except DoesNotExist:
                    turn = None
            if turn is None or turn.sequence != sequence:
                raise PreconditionFailed(f"turn {turn_id!r} does not exist")
            if turn.status != TurnStatus.OPEN.value:
                raise PreconditionFailed(f"turn {turn_id!r} is not open")

    def _kept_ids(self, pk: str, ids: list[str]) -> set[str]:
        marker = self._items.event_id
        with storage_errors():
            found = marker.batch_get(
                [(pk, keys.event_id_sk(event_id)) for event_id in ids],
                consistent_read=True,
                attributes_to_get=["pk", "sk"],
            )
            return {item.sk.removeprefix(keys.EVENT_ID) for item in found}

    def _plan(self, tenant: str, agent_id: str, session_id: str, event: HistoryEvent) -> _Planned:
        item = self._items.event.of(tenant, agent_id, session_id, event)
        marker = self._items.event_id.of(tenant, agent_id, session_id, event)
        size = item_bytes(item)
        if size <= _INLINE_MAX_BYTES:
            return _Planned(event, item, marker, None, size)
        if self._blobs.bucket is None:
            raise PayloadTooLarge(
                f"event {event.id!r} takes about {size} bytes; without a bucket for large "
                f"events, history keeps events of at most {_INLINE_MAX_BYTES}",
                code="event_too_large",
            )
        blob = (item.doc or "").encode()
        item.doc = None
        item.blob_bucket = self._blobs.bucket
        item.blob_key = keys.history_object(
            tenant, agent_id, session_id, event.id, uuid.uuid4().hex
        )
        return _Planned(event, item, marker, blob, item_bytes(item))

    def _append(self, tenant: str, agent_id: str, pk: str, chunk: list[_Planned]) -> None:
        """One transaction: the agent and turn checks, and each event's item and marker."""
        objects = [
            (p.item.blob_key, p.blob) for p in chunk if p.blob is not None and p.item.blob_key
        ]
        written: list[str] = []
        try:
            for key, blob in objects:
                self._blobs.put(key, blob)
                written.append(key)
        except StorageUnavailable:
            self._blobs.discard(written)  # nothing was sent to DynamoDB
            raise
        head, turn = self._items.agent, self._items.turn
        model, marker = self._items.event, self._items.event_id
        try:
            with Transaction(self.connection) as tx:
                agent_key = keys.agents_pk(tenant), keys.agent_sk(agent_id)
                tx.check(AGENT, head, *agent_key, live_agent(head))
                for turn_id, sequence in sorted(
                    {(p.event.turn_id, p.event.turn_sequence) for p in chunk}
                ):
                    # Open in the same transaction: a turn that ended meanwhile keeps nothing.
                    at = (
                        turn.pk.exists()
                        & (turn.sequence == sequence)
                        & (turn.status == TurnStatus.OPEN.value)
                    )
                    tx.check(_TURN + turn_id, turn, pk, keys.turn_sk(turn_id), at)
                for p in chunk:
                    tx.put(f"event {p.event.id}", p.item, model.pk.does_not_exist())
                    tx.put(f"event id {p.event.id}", p.marker, marker.pk.does_not_exist())
        except (PreconditionFailed, PayloadTooLarge, ValueError):
            # Cancelled or never sent: no item points at the objects. (After StorageUnavailable
            # the transaction may have been applied, so its objects stay.)
            self._blobs.discard([key for key, _ in objects])
            raise

    # -- reads -----------------------------------------------------------------------------------

    def turn_events(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[HistoryEvent]:
        pk = keys.session_pk(tenant, agent_id, session_id)
        with storage_errors():
            try:
                turn = self._items.turn.get(pk, keys.turn_sk(turn_id), consistent_read=True)
            except DoesNotExist:
                return []
        # Appends hold every event of a turn at the turn's sequence, so its events are one range.
        model = self._items.event
        sequence = int(turn.sequence)
        with storage_errors():
            items = list(
                model.query(
                    pk,
                    model.sk.between(keys.events_from(sequence), keys.events_through(sequence)),
                    filter_condition=model.turn_id == turn_id,
                    consistent_read=True,
                )
            )
        return self._events(items)

    def get_events(
        self, tenant: str, agent_id: str, session_id: str, ids: Sequence[str]
    ) -> list[HistoryEvent]:
        # An id with `#` cannot be a key part (keys.py), so it names no event.
        wanted = [event_id for event_id in dict.fromkeys(ids) if "#" not in event_id]
        if not wanted:
            return []
        pk = keys.session_pk(tenant, agent_id, session_id)
        with storage_errors():
            markers = list(
                self._items.event_id.batch_get(
                    [(pk, keys.event_id_sk(event_id)) for event_id in wanted],
                    consistent_read=True,
                )
            )
            items = (
                list(
                    self._items.event.batch_get(
                        [(pk, m.event_sk) for m in markers], consistent_read=True
                    )
                )
                if markers
                else []
            )
        events = self._events(items)
        return sorted(events, key=lambda e: (e.turn_sequence, e.sequence, e.id))

    def session_events(
        self,
        tenant: str,
        agent_id: str,
        session_id: str,
        limit: int,
        after: tuple[int, int] | None,
        from_turn: int | None = None,
        to_turn: int | None = None,
    ) -> list[HistoryEvent]:
        if limit <= 0 or (to_turn is not None and to_turn < 0):
            return []
        lower = keys.events_from(from_turn or 0)
        if after is not None and after[0] >= 0:
            # Strictly after (turn, sequence): from the next sequence of that turn on.
            lower = max(lower, keys.events_from(after[0], after[1] + 1))
        upper = keys.events_through(to_turn)
        if lower > upper:
            return []
        model = self._items.event
        with storage_errors():
            results = model.query(
                keys.session_pk(tenant, agent_id, session_id),
                model.sk.between(lower, upper),
                consistent_read=True,
                page_size=limit,
            )
            items = list(islice(results, limit))
        return self._events(items)

    def _events(self, items: list[EventItem]) -> list[HistoryEvent]:
        return list(self._loaded(items))

    def _loaded(self, items: list[EventItem]) -> Iterator[HistoryEvent]:
        for item in items:
            if item.doc is not None:
                yield event_of_doc(item.doc)
            else:
                yield event_of_doc(self._blobs.get(str(item.blob_bucket), str(item.blob_key)))


def _chunks(planned: list[_Planned]) -> Iterator[list[_Planned]]:
    """The events in order, cut into transactions within DynamoDB's limits: the agent check and
    a check per turn, two items an event, and at most MAX_TRANSACTION_BYTES of items."""
    chunk: list[_Planned] = []
    turns: set[str] = set()
    actions = size = 0
    for p in planned:
        more_actions = 2 + (p.event.turn_id not in turns)
        more_bytes = p.bytes + item_bytes(p.marker)
        over = (
            1 + actions + more_actions > MAX_TRANSACTION_ACTIONS
            or size + more_bytes > MAX_TRANSACTION_BYTES
        )
        if chunk and over:
            yield chunk
            chunk, turns, actions, size = [], set(), 0, 0
            more_actions = 3
        chunk.append(p)
        turns.add(p.event.turn_id)
        actions += more_actions
        size += more_bytes
    if chunk:
        yield chunk
