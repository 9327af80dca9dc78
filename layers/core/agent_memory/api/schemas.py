"""Request and response bodies of the HTTP API (entities are the domain's own models)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import ConfigDict, Field, StrictBool, StringConstraints

from ..domain.answers import IngestResult
from ..domain.kernel.deferred import DeferredModel
from ..domain.kernel.models import Agent, ManifestVersion, Session, StartedBy, Turn
from ..domain.manifests.named_manifests import NamedManifest, NamedManifestVersion
from ..domain.records.models import Record, RecordVersion

ShortText = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class _In(DeferredModel):
    model_config = ConfigDict(extra="forbid")


class ForkIn(_In):
    id: str = Field(description="The new agent's id, path-like (`teams/web/releases-copy`).")


class CreateSessionIn(_In):
    id: ShortText | None = Field(
        default=None,
        description="Choose the id; generated if absent. A sessions:own token may not choose "
        "one (403 session_id_forbidden).",
    )
    metadata: Annotated[
        dict[ShortText, Annotated[str, Field(max_length=1024)]], Field(max_length=32)
    ] = Field(default_factory=dict)


class BeginTurnIn(_In):
    id: ShortText | None = Field(default=None, description="Choose the id; generated if absent.")
    preview: StrictBool = False
    replay_of: ShortText | None = None
    started_by: StartedBy = "app"
    trigger_run_id: ShortText | None = None


class AgentList(DeferredModel):
    agents: list[Agent]
    next: str | None


class ManifestVersionList(DeferredModel):
    versions: list[ManifestVersion]
    next: str | None


class NamedManifestList(DeferredModel):
    manifests: list[NamedManifest]
    next: str | None


class NamedManifestVersionList(DeferredModel):
    versions: list[NamedManifestVersion]
    next: str | None


class SessionList(DeferredModel):
    sessions: list[Session]
    next: str | None


class TurnList(DeferredModel):
    turns: list[Turn]
    next: str | None


class RecordList(DeferredModel):
    records: list[Record]
    next: str | None


class RecordVersionList(DeferredModel):
    versions: list[RecordVersion]
    next: str | None


class IngestIn(_In):
    messages: list[dict[str, Any]] = Field(min_length=1, max_length=500)


class IngestOut(DeferredModel):
    STATUSES: ClassVar[tuple[str, ...]] = ("applied", "already applied", "failed")

    results: list[IngestResult]
    applied: int
    already_applied: int = Field(serialization_alias="alreadyApplied")
    failed: int


class IndexStatus(DeferredModel):
    """How far the agent's search index has caught up with what was written."""

    pending_vectors: int | None = Field(
        serialization_alias="pendingVectors",
        description="Documents found by words but not yet by meaning: the background embedder "
        "adds their vectors (embedded shape). null where the index cannot tell (the cloud's "
        "stream indexer embeds as it indexes).",
    )
    embedding_model: str | None = Field(
        serialization_alias="embeddingModel", description="The model vectors are made with."
    )


class ErrorBody(DeferredModel):
    code: str
    message: str


class ErrorResponse(DeferredModel):
    error: ErrorBody


__all__ = [
    "AgentList",
    "BeginTurnIn",
    "CreateSessionIn",
    "ErrorResponse",
    "ForkIn",
    "ManifestVersionList",
    "SessionList",
    "Turn",
]
