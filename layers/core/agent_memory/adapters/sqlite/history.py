"""Session history on SQLite (a mixin of SqliteStore)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ...domain.history.models import HistoryEvent
from .database import Database, lost_race, require_open_turn


def _event(doc: str) -> HistoryEvent:
    return HistoryEvent.model_validate(json.loads(doc))


def _turn_events_key(tenant: str, agent_id: str, session_id: str, turn_id: str) -> tuple[str, ...]:
    return ("turn_events", tenant, agent_id, session_id, turn_id)


def _turn_sequence_key(
    tenant: str, agent_id: str, session_id: str, turn_sequence: int
) -> tuple[object, ...]:
    return ("turn_sequence_events", tenant, agent_id, session_id, turn_sequence)


_ALL = 2**31  # events of one turn: all of them


class SqliteHistory:
    db: Database

    def append_events(
        self, tenant: str, agent_id: str, session_id: str, events: Sequence[HistoryEvent]
    ) -> bool:
        with lost_race("no such turn"), self.db.write() as conn:
            for turn_id in sorted({e.turn_id for e in events}):
                require_open_turn(self.db, conn, tenant, agent_id, session_id, turn_id)
            # DO NOTHING leaves a row out of the count: every event written is every row counted.
            written = conn.executemany(
                "INSERT INTO history_events (tenant, agent_id, session_id, event_id, turn_id,"
                " turn_sequence, sequence, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (tenant, agent_id, session_id, event_id) DO NOTHING",
                [
                    (
                        tenant,
                        agent_id,
                        session_id,
                        e.id,
                        e.turn_id,
                        e.turn_sequence,
                        e.sequence,
                        e.to_doc_json(),
                    )
                    for e in events
                ],
            ).rowcount
        self._remember_appended(tenant, agent_id, session_id, events, written == len(events))
        return written == len(events)

    def _remember_appended(
        self,
        tenant: str,
        agent_id: str,
        session_id: str,
        events: Sequence[HistoryEvent],
        as_given: bool,
    ) -> None:
        """In a batch, a turn's events it read (turn_events) with what was just appended: a
        commit then reads nothing back. When another event held a sequence, it is read again."""
        if not self.db.in_batch():
            return
        for turn_id in {e.turn_id for e in events}:
            added = [e for e in events if e.turn_id == turn_id]
            key = _turn_events_key(tenant, agent_id, session_id, turn_id)
            by_sequence = _turn_sequence_key(tenant, agent_id, session_id, added[0].turn_sequence)
            held = self.db.forget(key)
            self.db.forget(by_sequence)
            if as_given and isinstance(held, list):
                # All the turn's events: what session_events gives for its sequence, too.
                now = sorted([*held, *added], key=lambda e: e.sequence)
                self.db.remember(key, now)
                self.db.remember(by_sequence, now)

    def turn_events(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[HistoryEvent]:
        # A batch reads a turn's events at its append and again at its commit: once is enough.
        return list(
            self.db.memoized(
                _turn_events_key(tenant, agent_id, session_id, turn_id),
                lambda: self._read_turn_events(tenant, agent_id, session_id, turn_id),
            )
        )

    def _read_turn_events(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[HistoryEvent]:
        rows = (
            self.db.read()
            .execute(
                "SELECT doc FROM history_events WHERE tenant = ? AND agent_id = ? AND session_id = ?"
                " AND turn_id = ? ORDER BY sequence",
                (tenant, agent_id, session_id, turn_id),
            )
            .fetchall()
        )
        return [_event(row[0]) for row in rows]

    def get_events(
        self, tenant: str, agent_id: str, session_id: str, ids: Sequence[str]
    ) -> list[HistoryEvent]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        # Sorted here: with ORDER BY, SQLite (no statistics) walks the session's events in order
        # through history_in_order instead of looking each id up by its key.
        rows = (
            self.db.read()
            .execute(
                "SELECT doc FROM history_events WHERE tenant = ? AND agent_id = ? AND session_id = ?"
                f" AND event_id IN ({','.join('?' * len(wanted))})",
                (tenant, agent_id, session_id, *wanted),
            )
            .fetchall()
        )
        events = [_event(row[0]) for row in rows]
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
        turn, seq = after if after is not None else (-1, -1)

        def read(limit: int) -> list[HistoryEvent]:
            rows = (
                self.db.read()
                .execute(
                    "SELECT doc FROM history_events WHERE tenant = ? AND agent_id = ?"
                    " AND session_id = ? AND (turn_sequence, sequence) > (?, ?)"
                    " AND turn_sequence >= ? AND turn_sequence <= ?"
                    " ORDER BY turn_sequence, sequence LIMIT ?",
                    (
                        tenant,
                        agent_id,
                        session_id,
                        turn,
                        seq,
                        from_turn if from_turn is not None else 0,
                        to_turn if to_turn is not None else 2**62,
                        limit,
                    ),
                )
                .fetchall()
            )
            return [_event(row[0]) for row in rows]

        if after is None and from_turn is not None and from_turn == to_turn and self.db.in_batch():
            # One turn's events (the context a commit indexes with, history_context.said_before):
            # a batch knows those of the turns it appended to.
            return self.db.memoized(
                _turn_sequence_key(tenant, agent_id, session_id, from_turn), lambda: read(_ALL)
            )[:limit]
        return read(limit)
