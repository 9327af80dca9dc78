"""Agents, manifest versions, sessions and turns as their tables keep them."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from ...domain.kernel.events import updates_from_json, updates_json
from ...domain.kernel.models import Agent, Extraction, ManifestVersion, Session, Turn, TurnStatus

__all__ = [
    "agent_from_row",
    "session_from_row",
    "turn_from_row",
    "updates_json",
    "version_from_row",
]


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


def agent_from_row(row: sqlite3.Row) -> Agent:
    return Agent(
        tenant=row["tenant"],
        id=row["agent_id"],
        manifest_version=row["manifest_version"],
        manifest=json.loads(row["manifest"]),
        forked_from=row["forked_from"],
        created_at=datetime.fromisoformat(row["created_at"]),
        updated_at=datetime.fromisoformat(row["updated_at"]),
    )


def version_from_row(row: sqlite3.Row) -> ManifestVersion:
    return ManifestVersion(
        agent_id=row["agent_id"],
        version=row["version"],
        manifest=json.loads(row["manifest"]),
        created_at=datetime.fromisoformat(row["created_at"]),
    )


def session_from_row(row: sqlite3.Row) -> Session:
    return Session(
        tenant=row["tenant"],
        agent_id=row["agent_id"],
        id=row["session_id"],
        last_sequence=row["last_sequence"],
        reviewed_through=row["reviewed_through"],
        metadata=json.loads(row["metadata"]),
        created_at=datetime.fromisoformat(row["created_at"]),
        owner=row["owner"],
    )
