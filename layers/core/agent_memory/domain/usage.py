"""Usage: each model call a turn or the indexer made (purpose embed or memory). No limit counts
it; it is kept so an app can see what its agents cost."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from .models import Entity


class Usage(Entity):
    id: str
    agent_id: str = Field(serialization_alias="agentId")
    session_id: str | None = Field(default=None, serialization_alias="sessionId")
    turn_id: str | None = Field(default=None, serialization_alias="turnId")
    execution_id: str | None = Field(default=None, serialization_alias="executionId")
    purpose: str
    model_id: str = Field(serialization_alias="modelId")
    input_tokens: int = Field(serialization_alias="inputTokens")
    output_tokens: int = Field(default=0, serialization_alias="outputTokens")
    at: datetime


class UsageTotal(Entity):
    purpose: str
    model_id: str = Field(serialization_alias="modelId")
    calls: int
    input_tokens: int = Field(serialization_alias="inputTokens")
    output_tokens: int = Field(serialization_alias="outputTokens")
