"""Request and response bodies of the HTTP API (entities are the domain's own models)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from ..domain.models import Agent, ManifestVersion, Session, StartedBy, Turn
from ..domain.records import Record, RecordVersion

ShortText = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ForkIn(_In):
    id: str = Field(description="The new agent's id, path-like (`teams/web/releases-copy`).")


class CreateSessionIn(_In):
    id: ShortText | None = Field(default=None, description="Choose the id; generated if absent.")
    metadata: Annotated[
        dict[ShortText, Annotated[str, Field(max_length=1024)]], Field(max_length=32)
    ] = Field(default_factory=dict)


class BeginTurnIn(_In):
    id: ShortText | None = Field(default=None, description="Choose the id; generated if absent.")
    preview: bool = False
    replay_of: ShortText | None = None
    started_by: StartedBy = "app"
    trigger_run_id: ShortText | None = None


class AgentList(BaseModel):
    agents: list[Agent]
    next: str | None


class ManifestVersionList(BaseModel):
    versions: list[ManifestVersion]
    next: str | None


class SessionList(BaseModel):
    sessions: list[Session]
    next: str | None


class TurnList(BaseModel):
    turns: list[Turn]
    next: str | None


class RecordList(BaseModel):
    records: list[Record]
    next: str | None


class RecordVersionList(BaseModel):
    versions: list[RecordVersion]
    next: str | None


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
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
