"""The turns whose history documents are to be written again (migration 25), in the store's
SQLite file.

Event ids once were made from the turn and the sequence alone. Turn ids are the caller's and
repeat across sessions, so two sessions' events could share an id, and with it their search
documents: the later one's replaced the earlier one's, which search no longer found. Such an
event is now indexed under its id and its session (history.models.index_id). Migration 25 lists
each committed turn holding one; `agent-memory serve` (and `agent-memory reindex`) writes those
turns' documents again under those names, removes the documents named by the ids alone, and
takes each turn off the list as it is done (local/reindex.repair_index).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...domain.history.models import older_event_id
from ...domain.kernel.models import TurnStatus

if TYPE_CHECKING:
    from .database import Database

Key = tuple[str, str, str, str]  # tenant, agent, session, turn


def _list_turns(conn: sqlite3.Connection) -> None:
    """Every committed turn holding an event whose id was made without its session."""
    rows = conn.execute(
        "SELECT e.tenant, e.agent_id, e.session_id, e.turn_id, e.event_id, e.sequence"
        " FROM history_events e JOIN turns t ON t.tenant = e.tenant"
        " AND t.agent_id = e.agent_id AND t.session_id = e.session_id AND t.turn_id = e.turn_id"
        " WHERE t.status = ?",
        (TurnStatus.COMMITTED.value,),
    )
    turns = {
        (tenant, agent, session, turn)
        for tenant, agent, session, turn, event, sequence in rows
        if event == older_event_id(turn, sequence)
    }
    conn.executemany("INSERT OR IGNORE INTO index_repairs VALUES (?, ?, ?, ?)", sorted(turns))


INDEX_REPAIR_STEPS: list[str | Callable[[sqlite3.Connection], None]] = [
    """CREATE TABLE index_repairs (
        tenant TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        PRIMARY KEY (tenant, agent_id, session_id, turn_id)
    ) WITHOUT ROWID""",
    _list_turns,
]


def pending_repairs(db: Database, limit: int) -> list[Key]:
    rows = db.read().execute(
        "SELECT tenant, agent_id, session_id, turn_id FROM index_repairs"
        " ORDER BY tenant, agent_id, session_id, turn_id LIMIT ?",
        (limit,),
    )
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def repaired(db: Database, key: Key) -> None:
    with db.write() as conn:
        conn.execute(
            "DELETE FROM index_repairs WHERE tenant = ? AND agent_id = ? AND session_id = ?"
            " AND turn_id = ?",
            key,
        )
