"""Memory events, published after the change they describe has committed."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any, Literal

from pydantic import Field, TypeAdapter

from .models import Change, Entity, MemoryUpdate, Turn, utcnow

EventType = Literal["memory.updated", "agent.memory_updated"]


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


def updates_by_call(changes: list[Change]) -> list[MemoryUpdate]:
    """A commit's changes grouped by the call that made them, in call order (a change no call
    names, as a review's, stands alone under no effect id and is left out)."""
    grouped: dict[str, list[Change]] = {}
    for change in sorted(changes, key=lambda c: c.sequence):
        if change.effect_id is not None:
            grouped.setdefault(change.effect_id, []).append(change)
    return [MemoryUpdate(effect_id=eid, changes=found) for eid, found in grouped.items()]


def updates_json(updates: Sequence[MemoryUpdate]) -> str:
    """What a turn's calls changed as stores keep it (the API's field names)."""
    return _updates().dump_json(list(updates), by_alias=True).decode()


def updates_from_json(raw: str | None) -> list[MemoryUpdate]:
    return _updates().validate_json(raw) if raw else []


@cache
def _updates() -> TypeAdapter[list[MemoryUpdate]]:
    return TypeAdapter(list[MemoryUpdate])


def turn_updated(turn: Turn) -> list[Event]:
    """What a committed turn publishes: for each call that changed memory, its
    `memory.updated` on the session's stream and `agent.memory_updated` on the agent's."""
    return [
        event
        for update in turn.memory_updates
        for event in memory_updated(turn, update.changes, update.effect_id)
    ]


def memory_updated(turn: Turn, changes: list[Change], effect_id: str) -> list[Event]:
    """What one call's changes to memory, attributed to a turn, publish: `memory.updated` for
    the session's stream and `agent.memory_updated` for the agent's, both naming the turn. A turn
    without a session has no session stream: only the agent's event, naming no session."""
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


__all__ = [
    "Change",
    "Event",
    "EventType",
    "MemoryUpdate",
    "memory_updated",
    "turn_updated",
    "updates_by_call",
    "updates_from_json",
    "updates_json",
]


class EventPublisher(ABC):
    """Where memory events go: an in-process bus served as SSE, or EventBridge."""

    @abstractmethod
    def publish(self, events: Sequence[Event]) -> None:
        """Deliver events after the change they describe has committed. Never raises for a
        delivery failure: the change is already durable, so a lost event is logged, not fatal."""
