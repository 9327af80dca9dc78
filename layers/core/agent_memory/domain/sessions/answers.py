"""What the session service answers: a turn with what it wrote, and each ingested message's outcome.

Each is an `Answer` (domain/kernel/answers.py): field aliases are the camelCase the API sends,
and a key the model does not declare is refused.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ..kernel.answers import Answer, unset
from ..kernel.models import Turn
from ..kernel.records import Execution, Record
from ..usage import Usage


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


Applied = Literal["applied", "already applied"]


class IngestResult(Answer):
    """One ingested message's outcome, in its place in the batch."""

    status: Applied | Literal["failed"]
    # The error body the message would have had alone (code, message and the error's details).
    error: dict[str, Any] | None = Field(default=None, exclude_if=unset)
