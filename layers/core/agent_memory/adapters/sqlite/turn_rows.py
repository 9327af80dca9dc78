"""A turn as the `turns` table keeps it, and the JSON of what its calls changed."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from ...domain.events import updates_from_json, updates_json
from ...domain.models import Extraction, Turn, TurnStatus

__all__ = ["turn_from_row", "updates_json"]


def turn_from_row(row: sqlite3.Row) -> Turn:
    return Turn(
        tenant=row["tenant"],
        agent_id=row["agent_id"],
        session_id=row["session_id"],
        id=row["turn_id"],
        sequence=row["sequence"],
        status=TurnStatus(row["status"]),
        preview=bool(row["preview"]),
        replay_of=row["replay_of"],
        started_by=row["started_by"],
        trigger_run_id=row["trigger_run_id"],
        manifest_version=row["manifest_version"],
        created_at=datetime.fromisoformat(row["created_at"]),
        ended_at=datetime.fromisoformat(row["ended_at"]) if row["ended_at"] else None,
        extraction=Extraction.model_validate_json(row["extraction"]) if row["extraction"] else None,
        reviewed=bool(row["reviewed"]),
        memory_updates=updates_from_json(row["memory_updates"]),
    )
