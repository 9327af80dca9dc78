"""Usage: each model call a turn or the indexer made (purpose embed, memory, or search: a
rerank of a search's hits). No limit counts it; it is kept so an app can see what its agents
cost."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pydantic import Field

from ..kernel.deferred import DeferredModel
from ..kernel.ids import new_id
from ..kernel.models import Entity, Turn, utcnow


class Usage(Entity):
    id: str
    agent_id: str = Field(serialization_alias="agentId")
    session_id: str | None = Field(default=None, serialization_alias="sessionId")
    turn_id: str | None = Field(default=None, serialization_alias="turnId")
    execution_id: str | None = Field(default=None, serialization_alias="executionId")
    purpose: str = Field(
        description="embed, memory, search (a rerank) or entities (the entity model)"
    )
    model_id: str = Field(serialization_alias="modelId")
    input_tokens: int = Field(serialization_alias="inputTokens")
    output_tokens: int = Field(default=0, serialization_alias="outputTokens")
    # A rerank (purpose search): how long it took, and how many documents it scored (what
    # hosted rerankers bill by: Bedrock and Cohere count a query per 100 documents).
    latency_ms: int | None = Field(default=None, serialization_alias="latencyMs")
    documents: int | None = None
    at: datetime


class UsageTotal(Entity):
    purpose: str
    model_id: str = Field(serialization_alias="modelId")
    calls: int
    input_tokens: int = Field(serialization_alias="inputTokens")
    output_tokens: int = Field(serialization_alias="outputTokens")


class ModelCall(Protocol):
    """What a usage row is made from (a search's UsageEntry, a review's ModelUsage)."""

    @property
    def model_id(self) -> str: ...
    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...


def usage_rows(
    agent_id: str,
    purpose: str | None,
    calls: Iterable[ModelCall],
    *,
    turn: Turn | None = None,
    execution_id: str | None = None,
) -> list[Usage]:
    """One row a call, on the turn (and execution) when there is one. `purpose` None takes
    each call's own (a UsageEntry carries one)."""
    now = utcnow()
    return [
        Usage(
            id=new_id("use"),
            agent_id=agent_id,
            session_id=turn.own_session_id if turn else None,
            turn_id=turn.id if turn else None,
            execution_id=execution_id,
            purpose=purpose or getattr(call, "purpose"),  # noqa: B009 - a UsageEntry's own
            model_id=call.model_id,
            input_tokens=call.input_tokens,
            output_tokens=call.output_tokens,
            latency_ms=getattr(call, "latency_ms", None),
            documents=getattr(call, "documents", None),
            at=now,
        )
        for call in calls
    ]


@dataclass(frozen=True)
class UsageEntry:
    """One model call: purpose embed (search and indexing), memory (extraction) or search (a
    rerank, with its latency and the documents it scored)."""

    purpose: str
    model_id: str
    input_tokens: int
    output_tokens: int = 0
    latency_ms: int | None = None
    documents: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "purpose": self.purpose,
            "modelId": self.model_id,
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            **({} if self.latency_ms is None else {"latencyMs": self.latency_ms}),
            **({} if self.documents is None else {"documents": self.documents}),
        }


class UsagePage(DeferredModel):
    """An agent's model usage, newest first, a cursor, and its totals."""

    usage: list[Usage]
    next: str | None
    totals: list[UsageTotal]
