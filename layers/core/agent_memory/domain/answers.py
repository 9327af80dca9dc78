"""What the history and search services answer: typed results whose field aliases are the
camelCase the API sends. The routes dump them (by alias, as JSON), so the service never builds
the JSON itself and there is one model per shape.

A model here forbids keys it does not declare, so an answer that grows a key fails its route's
tests instead of losing the key; a key set only sometimes is optional and left out of the JSON
while it is None.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from .history.models import HistoryEvent
from .kernel.deferred import DeferredModel
from .kernel.models import Turn
from .records.models import Execution, Record
from .usage.models import Usage


def _unset(value: object) -> bool:
    return value is None


class Answer(DeferredModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# -- turns ------------------------------------------------------------------------------------------


class TurnWithWrites(Turn):
    """The turn detail's shape: the turn, the memories it wrote (live and preview), its
    executions and its model usage."""

    memories: list[Record]
    executions: list[Execution]
    usage: list[Usage]
    pending_vectors: int | None = Field(
        serialization_alias="pendingVectors",
        description="What the turn wrote that is found by words but not yet by meaning; null "
        "where that cannot be told.",
    )


# -- history ----------------------------------------------------------------------------------------


class KeptSecret(Answer):
    """What looks like a secret in an appended event: where it is, and whether it was kept."""

    sequence: int
    field: str
    kind: str
    line: int
    redacted: bool = Field(description="Replaced by [redacted:<kind>] (block) or kept (warn).")


class AppendOut(Answer):
    kept: int
    dropped: int = Field(description="Events harness.history.index does not keep.")
    ids: list[str]
    secrets: list[KeptSecret] | None = Field(default=None, exclude_if=_unset)


class HistoryPage(Answer):
    events: list[HistoryEvent]
    next: str | None


class HistoryHit(Answer):
    """An event found by a search: the text of its best part."""

    id: str
    session: str
    turn: int
    turn_id: str = Field(alias="turnId")
    part: int
    parts: int
    text: str
    execution: str | None
    sequence: int
    role: str
    # ISO 8601 as datetime.isoformat() writes it (+00:00), as the API has always sent it.
    time: str
    call: str | None = Field(
        default=None, exclude_if=_unset, description="The call a tool result answers."
    )


class HistorySearchPage(Answer):
    events: list[HistoryHit]
    next: str | None


# -- bulk ingestion ---------------------------------------------------------------------------------


Applied = Literal["applied", "already applied"]


class IngestResult(Answer):
    """One ingested message's outcome, in its place in the batch."""

    status: Applied | Literal["failed"]
    # The error body the message would have had alone (code, message and the error's details).
    error: dict[str, Any] | None = Field(default=None, exclude_if=_unset)


# -- one search over everything -------------------------------------------------------------------


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
