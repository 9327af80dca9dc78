"""Ingest messages (`agent-memory ingest` lines, ingest queue bodies) as the tests send them."""

from __future__ import annotations

from typing import Any


def one_turn(
    agent: str, session: str, turn: str, text: str, end: str = "commit", **begin: Any
) -> list[dict[str, Any]]:
    """A turn's three messages: begin (with `begin`'s extra fields), one user event saying
    `text` at sequence 1, and `end` (commit or rollback)."""
    where = {"agent": agent, "session": session, "turn": turn}
    return [
        {"op": "begin", **where, **begin},
        {"op": "events", **where, "events": [{"role": "user", "text": text, "sequence": 1}]},
        {"op": end, **where},
    ]
