"""What the history service answers: an append's outcome, a page of events, the events a search finds.

Each is an `Answer` (domain/kernel/answers.py): field aliases are the camelCase the API sends,
and a key the model does not declare is refused.
"""

from __future__ import annotations

from pydantic import Field

from ..kernel.answers import Answer, unset
from .models import HistoryEvent


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
    secrets: list[KeptSecret] | None = Field(default=None, exclude_if=unset)


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
        default=None, exclude_if=unset, description="The call a tool result answers."
    )


class HistorySearchPage(Answer):
    events: list[HistoryHit]
    next: str | None
