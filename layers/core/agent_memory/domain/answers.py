"""Every capability's answers, named together for the API's schemas and the SDK's models (the
services import their own from their capability's `answers.py`)."""

from __future__ import annotations

from .agents.answers import EventHit, Hit, MemoryHit, RecordHit, SearchHits
from .history.answers import AppendOut, HistoryHit, HistoryPage, HistorySearchPage, KeptSecret
from .kernel.answers import Answer
from .sessions.answers import Applied, IngestResult, TurnWithWrites

__all__ = [
    "Answer",
    "AppendOut",
    "Applied",
    "EventHit",
    "HistoryHit",
    "HistoryPage",
    "HistorySearchPage",
    "Hit",
    "IngestResult",
    "KeptSecret",
    "MemoryHit",
    "RecordHit",
    "SearchHits",
    "TurnWithWrites",
]
