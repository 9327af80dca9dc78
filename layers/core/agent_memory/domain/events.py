"""Memory events, published after the change they describe has committed."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from .models import Entity, Turn, utcnow

EventType = Literal["memory.updated", "agent.memory_updated"]


class Change(Entity):
    """One thing a commit changed: a record (`id`) or a file memory (`path`)."""

    id: str | None = None
    path: str | None = None
    operation: str
    version: int


class Event(Entity):
    """`memory.updated` goes to the session's stream, `agent.memory_updated` to the agent's."""

    type: EventType
    tenant: str = Field(exclude=True)
    agent_id: str = Field(serialization_alias="agentId")
    session_id: str | None = Field(default=None, serialization_alias="sessionId")
    turn_id: str | None = Field(default=None, serialization_alias="turnId")
    effect_id: str | None = Field(default=None, serialization_alias="effectId")
    changes: list[Change] = Field(default_factory=list)
    at: datetime

    def body(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def memory_updated(turn: Turn, changes: list[Change], effect_id: str) -> list[Event]:
    """What a turn's changes publish: `memory.updated` for the session's stream and
    `agent.memory_updated` for the agent's, both naming the turn. A turn without a session
    has no session stream: only the agent's event, naming no session."""
    common = {
        "tenant": turn.tenant,
        "agent_id": turn.agent_id,
        "session_id": turn.own_session_id,
        "turn_id": turn.id,
        "effect_id": effect_id,
        "at": utcnow(),
    }
    agent_event = Event(type="agent.memory_updated", changes=changes, **common)
    if turn.sessionless:
        return [agent_event]
    return [Event(type="memory.updated", changes=changes, **common), agent_event]
