"""Post-turn reviews in SQLite: the turn's review as JSON with its status beside it, so the
queued and running ones (the embedded worker's queue) are found through a partial index."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Sequence

from ...domain.history.keys import EventKeys, keys_by_turn, keys_from_json, keys_json
from ...domain.kernel.errors import PreconditionFailed
from ...domain.kernel.models import (
    UNFINISHED_EXTRACTION,
    Extraction,
    ExtractionStatus,
    Turn,
    TurnStatus,
)
from ...domain.records.models import RecordWrite
from ...domain.search.index import IndexDoc
from .database import Database
from .rows import turn_from_row
from .search import EmbeddedIndex


def set_extraction(
    conn: sqlite3.Connection,
    turn: Turn,
    extraction: Extraction,
    expect: Collection[ExtractionStatus] | None = None,
) -> None:
    """Write the turn's review; with `expect`, only while its status is one of those."""
    sql = (
        "UPDATE turns SET extraction = ?, extraction_status = ? WHERE tenant = ?"
        " AND agent_id = ? AND session_id = ? AND turn_id = ?"
    )
    params: list[object] = [
        extraction.model_dump_json(),
        extraction.status.value,
        turn.tenant,
        turn.agent_id,
        turn.session_id,
        turn.id,
    ]
    if expect is not None:
        sql += f" AND extraction_status IN ({', '.join('?' * len(expect))})"
        params += [s.value for s in expect]
    if conn.execute(sql, params).rowcount != 1:
        raise PreconditionFailed(f"turn {turn.id!r}'s review is not in the expected state")


class SqliteExtraction:
    """Mixed into SqliteStore beside SqliteRecords, whose `_apply` writes the records."""

    db: Database
    index: EmbeddedIndex | None
    _apply: Callable[[sqlite3.Connection, str, str, Sequence[RecordWrite]], None]

    def update_extraction(
        self, turn: Turn, extraction: Extraction, expect: Collection[ExtractionStatus]
    ) -> None:
        self.db.forget_memo()  # a batch may hold the turn (SqliteStore.get_turn)
        with self.db.write() as conn:
            set_extraction(conn, turn, extraction, expect)

    def finish_extraction(
        self,
        turn: Turn,
        extraction: Extraction,
        writes: Sequence[RecordWrite],
        read: Sequence[str] = (),
        keys: Sequence[EventKeys] = (),
        index_docs: Sequence[IndexDoc] = (),
    ) -> None:
        # Keys are kept only on the turns the review read, flagged in this transaction (as
        # DynamoExtraction sets them beside each flag).
        by_turn = keys_by_turn(keys, read)
        self.db.forget_memo()  # a batch may hold the turns it flags (SqliteStore.get_turn)
        with self.db.write() as conn:
            set_extraction(conn, turn, extraction, UNFINISHED_EXTRACTION)
            for turn_id in read:
                flagged = conn.execute(
                    "UPDATE turns SET reviewed = 1 WHERE tenant = ? AND agent_id = ?"
                    " AND session_id = ? AND turn_id = ? AND reviewed = 0",
                    (turn.tenant, turn.agent_id, turn.session_id, turn_id),
                ).rowcount
                if flagged != 1:
                    raise PreconditionFailed(f"turn {turn_id!r} was reviewed meanwhile")
            conn.execute(
                "UPDATE sessions SET reviewed_through = MAX(reviewed_through, ?)"
                " WHERE tenant = ? AND agent_id = ? AND session_id = ?",
                (extraction.through, turn.tenant, turn.agent_id, turn.session_id),
            )
            self._apply(conn, turn.tenant, turn.agent_id, writes)
            for turn_id, kept in by_turn.items():
                conn.execute(
                    "UPDATE turns SET fact_keys = ? WHERE tenant = ? AND agent_id = ?"
                    " AND session_id = ? AND turn_id = ?",
                    (
                        keys_json(kept),
                        turn.tenant,
                        turn.agent_id,
                        turn.session_id,
                        turn_id,
                    ),
                )
            if self.index is not None and index_docs:
                self.index.upsert_in(conn, index_docs)

    def event_keys(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[EventKeys]:
        row = (
            self.db.read()
            .execute(
                "SELECT fact_keys FROM turns WHERE tenant = ? AND agent_id = ?"
                " AND session_id = ? AND turn_id = ?",
                (tenant, agent_id, session_id, turn_id),
            )
            .fetchone()
        )
        return keys_from_json(row[0]) if row is not None else []

    def pending_extractions(self, limit: int) -> list[Turn]:
        """Committed turns whose review is queued or was running, oldest first: the embedded
        worker's queue, as it stands after a restart."""
        rows = (
            self.db.read()
            .execute(
                # The statuses are literals: SQLite uses a partial index only when the query's
                # WHERE implies the index's, which a bound parameter never does.
                "SELECT * FROM turns WHERE extraction_status IN ('queued', 'running')"
                " AND status = ? ORDER BY ended_at LIMIT ?",
                (TurnStatus.COMMITTED.value, limit),
            )
            .fetchall()
        )
        return [turn_from_row(row) for row in rows]
