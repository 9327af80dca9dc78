"""The one port that spans the capabilities: everything the foundation keeps, behind one
object per adapter. Each capability owns its own ports (agents/ports.py, records/ports.py, ...);
adapters live in agent_memory.adapters.
"""

from __future__ import annotations

from abc import ABC
from contextlib import AbstractContextManager, nullcontext

from .agents.ports import AgentStore
from .audit.ports import AuditStore
from .extraction.ports import ConsolidationStore, ExtractionStore
from .files.ports import FileStore
from .history.ports import HistoryStore
from .manifests.named_manifests import NamedManifestStore
from .records.ports import RecordStore
from .sessions.ports import SessionStore, TurnLog
from .transfer.ports import ReviewMarks
from .usage.ports import UsageStore


class Store(
    NamedManifestStore,
    AgentStore,
    SessionStore,
    TurnLog,
    RecordStore,
    FileStore,
    UsageStore,
    HistoryStore,
    ExtractionStore,
    ConsolidationStore,
    AuditStore,
    ReviewMarks,
    ABC,
):
    """Everything the foundation keeps, behind one object per adapter."""

    def close(self) -> None:  # noqa: B027 - optional hook, most adapters hold nothing to close
        """Release connections."""

    def batched(self) -> AbstractContextManager[None]:
        """Many small writes as one unit of the store's own work, where that is cheaper: each
        write inside still succeeds or fails on its own, and all of them are durable and
        visible to others only once the block ends (SQLite: one transaction, each write a
        savepoint in it). Adapters whose writes cannot be grouped (DynamoDB) write as usual."""
        return nullcontext()

    def exclusive(self) -> AbstractContextManager[None]:
        """Hold off this process's other writers while a read-then-write attempt runs, where
        the store serialises its writers (SQLite: its writer lock, re-entrant), so the attempt
        never loses to one of them; elsewhere nothing (DynamoDB's conditional writes decide)."""
        return nullcontext()
