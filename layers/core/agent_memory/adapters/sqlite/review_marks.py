"""The ReviewMarks port on SQLite (a mixin of SqliteStore): how far an imported session's
reviews had read, written in one transaction."""

from __future__ import annotations

from collections.abc import Sequence

from ...domain.kernel.errors import NotFound
from .database import Database


class SqliteReviewMarks:
    db: Database

    def restore_reviewed(
        self,
        tenant: str,
        agent_id: str,
        session_id: str,
        reviewed_through: int,
        turn_ids: Sequence[str],
    ) -> None:
        self.db.forget_memo()  # a batch may hold the session or turns read before
        with self.db.write() as conn:
            moved = conn.execute(
                "UPDATE sessions SET reviewed_through = MAX(reviewed_through, ?)"
                " WHERE tenant = ? AND agent_id = ? AND session_id = ?",
                (reviewed_through, tenant, agent_id, session_id),
            ).rowcount
            if moved != 1:
                raise NotFound(f"session {session_id!r} does not exist", code="session_not_found")
            for turn_id in turn_ids:
                flagged = conn.execute(
                    "UPDATE turns SET reviewed = 1 WHERE tenant = ? AND agent_id = ?"
                    " AND session_id = ? AND turn_id = ?",
                    (tenant, agent_id, session_id, turn_id),
                ).rowcount
                if flagged != 1:
                    raise NotFound(f"turn {turn_id!r} does not exist", code="turn_not_found")
