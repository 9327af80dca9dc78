"""The `Services` type: every service the composition root (bootstrap.py) wires, as one value.

Its own module so that what consumes the services (api/, local/) can name the type without
importing the composition root and, through it, every adapter it may pick."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from .domain.agents.named_manifest_service import NamedManifestService
from .domain.agents.search import AgentSearch
from .domain.agents.service import AgentService
from .domain.audit.service import AuditService
from .domain.extraction.approval import ProposalReview
from .domain.extraction.consolidation import ConsolidationService
from .domain.extraction.ports import ExtractionStarter
from .domain.extraction.service import ExtractionService
from .domain.files.service import FileService
from .domain.history.search import HistorySearch
from .domain.history.service import HistoryService
from .domain.kernel.events import EventPublisher
from .domain.records.service import RecordService
from .domain.sessions.ingest import IngestService
from .domain.sessions.service import SessionService
from .domain.store import Store
from .domain.tools.service import ToolService
from .settings import Settings

if TYPE_CHECKING:
    from .adapters.consolidation_worker import ConsolidationWorker
    from .adapters.expiry_worker import ExpiryWorker
    from .adapters.sqlite.entity_worker import EntityWorker
    from .adapters.sqlite.vectors import BackgroundEmbedder
    from .domain.transfer import Transfer


@dataclass(frozen=True)
class Services:
    settings: Settings
    store: Store
    events: EventPublisher
    agents: AgentService
    sessions: SessionService
    records: RecordService
    files: FileService
    history: HistoryService
    history_search: HistorySearch
    agent_search: AgentSearch
    tools: ToolService
    ingest: IngestService
    audit: AuditService
    agent_manifests: NamedManifestService
    # An app's approvals and rejections of a review's pending writes.
    proposals: ProposalReview
    # Builds `transfer` on first use (what an export or import needs is not a cold start's).
    make_transfer: Callable[[], Transfer]
    extraction: ExtractionService | None = None
    starter: ExtractionStarter | None = None
    # Embedded shape: adds the vectors of what writes queued (the server runs it in background).
    vectors: BackgroundEmbedder | None = None
    # Embedded shape with an entity model: adds the model's entity keys of what writes queued.
    entities: EntityWorker | None = None
    # Embedded shape: writes down expired records and purges them after retention.
    expiry: ExpiryWorker | None = None
    # Consolidation of an agent's record memory (on request, and on its schedule).
    consolidation: ConsolidationService | None = None
    # Embedded shape: runs the consolidations agents have on a schedule.
    consolidations: ConsolidationWorker | None = None

    @cached_property
    def transfer(self) -> Transfer:
        """An agent read out as a bundle's items, and written back from them (either shape)."""
        return self.make_transfer()

    def drain_extractions(self) -> int:
        """Run the queued post-turn reviews now, in this thread (embedded worker only)."""
        drain = getattr(self.starter, "drain", None)
        return drain() if drain is not None else 0

    def drain_vectors(self, after_batch: Callable[[int], None] | None = None) -> int:
        """Embed every queued document now, in this thread (embedded shape only)."""
        return self.vectors.drain(after_batch) if self.vectors is not None else 0

    def drain_entities(self) -> int:
        """Ask the entity model for every queued text now, in this thread (embedded only)."""
        return self.entities.drain() if self.entities is not None else 0

    def close(self) -> None:
        stop = getattr(self.starter, "stop", None)
        if stop is not None:
            stop()
        if self.vectors is not None:
            self.vectors.stop()
        if self.entities is not None:
            self.entities.stop()
        if self.expiry is not None:
            self.expiry.stop()
        if self.consolidations is not None:
            self.consolidations.stop()
        self.store.close()
