"""Ports of the extraction capability: the post-turn reviews and how they start.

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Sequence

from ..history import EventKeys
from ..kernel.models import (
    Extraction,
    ExtractionStatus,
    Turn,
)
from ..records import RecordWrite
from ..search import IndexDoc
from .consolidation_models import ConsolidationRun
from .job import ExtractionJob


class ExtractionStore(ABC):
    """Each committed turn's post-turn review, and how far each session has been reviewed."""

    @abstractmethod
    def update_extraction(
        self, turn: Turn, extraction: Extraction, expect: Collection[ExtractionStatus]
    ) -> None:
        """Set the turn's review while its status is one of `expect`; PreconditionFailed
        otherwise (another run finished it, or the turn has none)."""

    @abstractmethod
    def finish_extraction(
        self,
        turn: Turn,
        extraction: Extraction,
        writes: Sequence[RecordWrite],
        read: Sequence[str] = (),
        keys: Sequence[EventKeys] = (),
        index_docs: Sequence[IndexDoc] = (),
    ) -> None:
        """Apply the review's record writes, mark it done, flag the turns it `read` (ids of the
        session's turns) reviewed, and move the session's reviewed_through up to
        extraction.through: all or none. PreconditionFailed if the review is done already (a
        re-run applies nothing), a turn it read was reviewed by another review meanwhile, or a
        record changed meanwhile.

        `keys`: the facts the review proposed from each event of the turns it read (each one of
        a turn in `read`), which replace any the event had; `index_docs` their key documents,
        written by a store holding its own index (the cloud indexes them from the stream)."""

    @abstractmethod
    def event_keys(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[EventKeys]:
        """The fact keys of the turn's events, as the last review that read it left them."""


class ExtractionStarter(ABC):
    """Starts a committed turn's review: the embedded worker's queue, or a Step Functions
    execution named after the turn (a duplicate start is a no-op)."""

    @abstractmethod
    def start(self, job: ExtractionJob) -> None: ...


class ConsolidationStore(ABC):
    """Each consolidation run of an agent, kept with the agent (deleted with it)."""

    @abstractmethod
    def save_consolidation(self, run: ConsolidationRun) -> None:
        """Keep the run: a new one, or the same run (same id) as it now stands."""

    @abstractmethod
    def list_consolidations(
        self, tenant: str, agent_id: str, limit: int, before: str | None
    ) -> list[ConsolidationRun]:
        """Up to `limit` runs of the agent, newest (highest id) first, ids below `before`."""


class ConsolidationSchedule(ABC):
    """What scheduled consolidation needs of its store, across tenants: the
    agents whose current manifest sets harness.memory.consolidation.every."""

    @abstractmethod
    def scheduled_consolidations(self) -> list[tuple[str, str, str]]:
        """(tenant, agent id, every) of each agent consolidated on a schedule."""
