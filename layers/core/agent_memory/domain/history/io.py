"""search_history's input and output."""

from __future__ import annotations

from pydantic import (
    Field,
    StrictInt,
)

from ..turns import ToolIn, ToolOut
from .answers import HistoryHit

HISTORY_MAX_LIMIT = 50


class SearchHistoryIn(ToolIn):
    query: str | None = Field(default=None, max_length=4096)
    ids: list[str] | None = Field(default=None, max_length=100)
    limit: StrictInt = Field(default=5, ge=1, le=HISTORY_MAX_LIMIT)
    cursor: str | None = Field(default=None, max_length=1024)


class HistoryOut(ToolOut):
    """search_history: the events (or their parts) found, and a cursor."""

    events: list[HistoryHit]
    next: str | None = None
