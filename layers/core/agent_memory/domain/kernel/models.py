"""Entities of the foundation: agents, manifest versions, sessions and turns."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Generic, Literal, TypeVar

from pydantic import (
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_serializer,
    model_serializer,
)

from .deferred import DeferredModel
from .where import SessionRef, TurnRef

T = TypeVar("T")

StartedBy = Literal["person", "app", "trigger", "wake"]

# An agent's turns without a session (a trigger's, a wake's) run in this reserved session: no
# caller can make, list or reach it by its id (session ids start with a letter or digit), and a
# turn in it shows no session.
AGENT_SESSION = "-"


def utcnow() -> datetime:
    return datetime.now(UTC)


class Entity(DeferredModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True)


class Agent(Entity):
    tenant: str = Field(exclude=True)
    id: str
    manifest_version: int = Field(serialization_alias="manifestVersion")
    manifest: dict[str, Any]
    created_at: datetime = Field(serialization_alias="createdAt")
    updated_at: datetime = Field(serialization_alias="updatedAt")
    forked_from: str | None = Field(default=None, serialization_alias="forkedFrom")


class ManifestVersion(Entity):
    agent_id: str = Field(serialization_alias="agentId")
    version: int
    manifest: dict[str, Any]
    created_at: datetime = Field(serialization_alias="createdAt")


class Session(Entity):
    tenant: str = Field(exclude=True)
    agent_id: str = Field(serialization_alias="agentId")
    id: str
    # The last turn sequence handed out; begins take the next one under a condition on this value.
    last_sequence: int = Field(default=0, serialization_alias="turns")
    metadata: dict[str, str] = Field(default_factory=dict)
    created_at: datetime = Field(serialization_alias="createdAt")
    # The subject of the credential that started it: a `sessions:own` caller reaches only the
    # sessions its own subject started. None for sessions started before owners were kept.
    owner: str | None = None
    # Post-turn extraction has reviewed the messages of every turn up to this sequence.
    reviewed_through: int = Field(default=0, serialization_alias="reviewedThrough")

    @property
    def ref(self) -> SessionRef:
        """Where the session is: its tenant, agent and id."""
        return SessionRef(self.tenant, self.agent_id, self.id)


class TurnStatus(StrEnum):
    OPEN = "open"
    COMMITTED = "committed"
    ROLLED_BACK = "rolled_back"


class ExtractionStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


# The states a review can still move from (a failed one can be run again).
UNFINISHED_EXTRACTION = (ExtractionStatus.QUEUED, ExtractionStatus.RUNNING, ExtractionStatus.FAILED)


class Extraction(Entity):
    """The post-turn review a committed turn started: where it is, what it read and did."""

    status: ExtractionStatus
    # The window: messages of the session's committed turns after `from_turn` up to `through`.
    from_turn: int = Field(serialization_alias="fromTurn")
    through: int
    messages: int = 0
    attempts: int = 0
    # Re-runs asked for after the review failed (POST .../turns/{turnId}/extraction).
    runs: int = 0
    candidates: int | None = None
    added: int = 0
    replaced: int = 0
    deleted: int = 0
    skipped: int = 0
    # Writes left PENDING for an app's approval (harness.memory.extraction.approval "review"):
    # then added, replaced and deleted stay 0, as nothing was applied.
    proposed: int = 0
    dropped: list[str] = Field(default_factory=list)
    model_calls: int = Field(default=0, serialization_alias="modelCalls")
    input_tokens: int = Field(default=0, serialization_alias="inputTokens")
    output_tokens: int = Field(default=0, serialization_alias="outputTokens")
    error: str | None = None
    queued_at: datetime = Field(serialization_alias="queuedAt")
    ended_at: datetime | None = Field(default=None, serialization_alias="endedAt")


class Change(Entity):
    """One thing a commit changed: a record (`id`) or a file memory (`path`)."""

    id: str | None = None
    path: str | None = None
    operation: str
    version: int
    # The staged call that made it and its place in the turn: a turn publishes one
    # memory.updated a call, in call order. Not part of any event's shape.
    effect_id: str | None = Field(default=None, exclude=True)
    sequence: int = Field(default=0, exclude=True)

    @model_serializer(mode="wrap")
    def _named_once(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A change names a record by `id` or a file by `path`, never both: the other is left out
        # wherever a change is shown (an event, a turn, an export).
        doc: dict[str, Any] = handler(self)
        for key in ("id", "path"):
            if doc.get(key, "") is None:
                del doc[key]
        return doc


class MemoryUpdate(Entity):
    """What one call of a turn changed, kept with the committed turn and published as its
    `memory.updated`: the call's effect id and its changes, in the order it made them."""

    effect_id: str = Field(alias="effectId")  # read back as stored (stores keep the API form)
    changes: list[Change]


class Turn(Entity):
    tenant: str = Field(exclude=True)
    agent_id: str = Field(serialization_alias="agentId")
    session_id: str = Field(serialization_alias="sessionId")
    id: str
    sequence: int
    status: TurnStatus = TurnStatus.OPEN
    preview: bool = False
    replay_of: str | None = Field(default=None, serialization_alias="replayOf")
    started_by: StartedBy = Field(default="app", serialization_alias="startedBy")
    trigger_run_id: str | None = Field(default=None, serialization_alias="triggerRunId")
    manifest_version: int = Field(serialization_alias="manifestVersion")
    created_at: datetime = Field(serialization_alias="createdAt")
    ended_at: datetime | None = Field(default=None, serialization_alias="endedAt")
    extraction: Extraction | None = None
    # Whether a finished post-turn review has read this turn's messages (each is read once).
    reviewed: bool = False
    # One entry a call that changed memory, in call order, kept by the commit that applied it.
    memory_updates: list[MemoryUpdate] = Field(
        default_factory=list, serialization_alias="memoryUpdates"
    )

    @property
    def ref(self) -> TurnRef:
        """Where the turn is: its tenant, agent, session and id."""
        return TurnRef(self.tenant, self.agent_id, self.session_id, self.id)

    @property
    def sessionless(self) -> bool:
        """A turn of the agent itself, begun without a session (AGENT_SESSION)."""
        return self.session_id == AGENT_SESSION

    @property
    def own_session_id(self) -> str | None:
        """The session the turn belongs to, as provenance names it: None without one."""
        return None if self.sessionless else self.session_id

    @field_serializer("session_id")
    def _shown_session(self, value: str) -> str | None:
        return None if value == AGENT_SESSION else value


class Page(DeferredModel, Generic[T]):
    """One page of a listing; `next` is an opaque cursor, null on the last page."""

    items: list[T]
    next: str | None = None
