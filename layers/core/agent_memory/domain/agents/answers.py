"""What the one search over an agent's memory answers: records, file memories and history events, ranked together.

Each is an `Answer` (domain/kernel/answers.py): field aliases are the camelCase the API sends,
and a key the model does not declare is refused.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..kernel.answers import Answer


class RecordHit(Answer):
    type: Literal["record"]
    score: float
    id: str
    version: int
    kind: str
    scope: str
    session_id: str | None = Field(alias="sessionId")
    summary: str
    labels: dict[str, str]


class MemoryHit(Answer):
    type: Literal["memory"]
    score: float
    path: str
    version: int
    content_sha256: str = Field(alias="contentSha256")
    description: str | None
    updated_at: str = Field(alias="updatedAt")


class EventHit(Answer):
    type: Literal["history"]
    score: float
    session_id: str = Field(alias="sessionId")
    turn: int
    turn_id: str = Field(alias="turnId")
    event_id: str = Field(alias="eventId")
    sequence: int
    part: int
    parts: int
    role: str
    time: str
    text: str


Hit = Annotated[RecordHit | MemoryHit | EventHit, Field(discriminator="type")]


class SearchHits(Answer):
    hits: list[Hit]
