"""The one composition root: settings -> adapters -> services. Nothing else picks an adapter."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .domain.embeddings import Embedder
from .domain.extraction.model import MemoryModel
from .domain.ports import EventPublisher, ExtractionStarter, Store
from .domain.search.service import SearchService
from .domain.services.agent_search import AgentSearch
from .domain.services.agents import AgentService
from .domain.services.audit import AuditService
from .domain.services.extraction import ExtractionService
from .domain.services.files import FileLimits, FileService
from .domain.services.history import HistoryService
from .domain.services.history_search import HistorySearch, history_input_error
from .domain.services.ingest import IngestService
from .domain.services.records import RecordService
from .domain.services.sessions import SessionService
from .domain.services.tools import ToolService
from .domain.services.turn_context import ManifestCache
from .domain.tool_io import HistoryOut, MemoryIn, MemoryOut, SearchHistoryIn, memory_input_error
from .settings import Settings

if TYPE_CHECKING:
    from .adapters.sqlite.vectors import BackgroundEmbedder

logger = logging.getLogger(__name__)


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
    extraction: ExtractionService | None = None
    starter: ExtractionStarter | None = None
    # Embedded shape: adds the vectors of what writes queued (the server runs it in background).
    vectors: BackgroundEmbedder | None = None

    def drain_extractions(self) -> int:
        """Run the queued post-turn reviews now, in this thread (embedded worker only)."""
        drain = getattr(self.starter, "drain", None)
        return drain() if drain is not None else 0

    def drain_vectors(self, after_batch: Callable[[int], None] | None = None) -> int:
        """Embed every queued document now, in this thread (embedded shape only)."""
        return self.vectors.drain(after_batch) if self.vectors is not None else 0

    def close(self) -> None:
        stop = getattr(self.starter, "stop", None)
        if stop is not None:
            stop()
        if self.vectors is not None:
            self.vectors.stop()
        self.store.close()


def build_store(settings: Settings) -> Store:
    if settings.store == "dynamodb":
        # Imported here so the embedded shape never pays for pynamodb and botocore.
        from .adapters.dynamodb import DynamoStore

        assert settings.table_name and settings.region  # checked by Settings
        return DynamoStore(
            settings.table_name,
            settings.region,
            host=settings.dynamodb_endpoint,
            bucket=settings.history_bucket,
        )
    from .adapters.sqlite import SqliteStore

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return SqliteStore(settings.database_path, settings.sqlite_synchronous)


def build_events(settings: Settings) -> EventPublisher:
    if settings.event_bus_name:
        from .adapters.events.eventbridge import EventBridgePublisher

        return EventBridgePublisher(settings.event_bus_name, region=settings.region)
    from .adapters.events.local_bus import InProcessBus

    return InProcessBus(webhook_url=settings.webhook_url, webhook_key=settings.webhook_key)


def build_embedder(settings: Settings) -> Embedder | None:
    kind = settings.embedder_kind
    if kind == "local":
        from .adapters.embeddings.local import LocalEmbedder

        return LocalEmbedder()
    if kind == "bedrock":
        from .adapters.embeddings.bedrock import BedrockEmbedder

        return BedrockEmbedder(
            model_id=settings.bedrock_embedding_model,
            dimensions=settings.bedrock_embedding_dimensions,
            region=settings.region,
        )
    return None


def build_model(settings: Settings) -> MemoryModel | None:
    """The model post-turn reviews ask; None turns reviews off."""
    kind = settings.extraction_model_kind
    if kind == "rule_based":
        from .adapters.models.rule_based import RuleBasedModel

        return RuleBasedModel()
    if kind == "openai":
        from .adapters.models.openai_compatible import OpenAICompatibleModel

        assert settings.openai_base_url and settings.openai_model  # checked by Settings
        key = settings.openai_api_key
        return OpenAICompatibleModel(
            base_url=settings.openai_base_url,
            model=settings.openai_model,
            api_key=key.get_secret_value() if key else None,
        )
    if kind == "bedrock":
        from .adapters.models.bedrock import BedrockModel

        return BedrockModel(model_id=settings.bedrock_model, region=settings.region)
    return None


def build_starter(
    settings: Settings, store: Store, extraction: ExtractionService
) -> ExtractionStarter:
    """Cloud: a Step Functions execution per turn. Embedded: the in-process worker, whose
    pending jobs are the SQLite file's queued reviews (the server runs it in the background)."""
    if settings.extraction_state_machine_arn:
        from .adapters.extraction.stepfunctions import StepFunctionsStarter

        return StepFunctionsStarter(settings.extraction_state_machine_arn, region=settings.region)
    from .local.extraction_worker import ExtractionWorker

    return ExtractionWorker(
        extraction,
        getattr(store, "pending_extractions", None),
        queue_size=settings.extraction_queue_size,
        attempts=settings.extraction_attempts,
        backoff_seconds=settings.extraction_backoff_seconds,
    )


def build_vectors(store: Store, search: SearchService) -> BackgroundEmbedder | None:
    """Embedded shape with a model: the thread that adds queued vectors."""
    if not search.inline or search.embedder is None:
        return None
    from .adapters.sqlite import SqliteStore
    from .adapters.sqlite.vectors import BackgroundEmbedder

    assert isinstance(store, SqliteStore) and store.index is not None
    return BackgroundEmbedder(store.index, search.embedder, store)


def build_search(settings: Settings, store: Store, embedder: Embedder | None) -> SearchService:
    """Embedded: the index lives in the SQLite file and is written with each commit. Cloud:
    OpenSearch Serverless, fed by the stream indexer; without an endpoint, lexical in-process."""
    attach = getattr(store, "attach_index", None)
    if attach is not None:
        index = attach(
            embedder.model_id if embedder else None, embedder.dimensions if embedder else None
        )
        return SearchService(index, embedder, inline=True)
    if settings.opensearch_endpoint:
        from .adapters.opensearch import connect

        assert settings.region
        index = connect(
            settings.opensearch_endpoint,
            settings.region,
            settings.opensearch_index,
            embedder.dimensions if embedder else 0,
            model_id=embedder.model_id if embedder else None,
            timeout=5.0,  # three tries inside the API's 29 s
        )
        return SearchService(index, embedder, inline=False)
    return SearchService(None, embedder, inline=False)


def build_services(
    settings: Settings,
    store: Store | None = None,
    events: EventPublisher | None = None,
    embedder: Embedder | None | bool = True,
    model: MemoryModel | None | bool = True,
) -> Services:
    """Wire every service. Tests pass adapters of their own to run the same API on any of them."""
    store = store if store is not None else build_store(settings)
    events = events if events is not None else build_events(settings)
    chosen = build_embedder(settings) if embedder is True else (embedder or None)
    search = build_search(settings, store, chosen)
    files = FileService(
        store,
        events,
        FileLimits(
            memory_bytes=settings.memory_bytes,
            memories_per_agent=settings.memories_per_agent,
            index_lines=settings.memory_index_lines,
            index_bytes=settings.memory_index_bytes,
        ),
        search,
    )
    manifests = ManifestCache(store)
    agents = AgentService(store, files, manifests, search)
    records = RecordService(store, events, search, manifests)
    history = HistoryService(store, manifests, search)
    history_search = HistorySearch(store, manifests, search)
    chosen_model = build_model(settings) if model is True else (model or None)
    extraction = (
        ExtractionService(store, manifests, records, events, chosen_model)
        if chosen_model is not None
        else None
    )
    starter = build_starter(settings, store, extraction) if extraction is not None else None
    sessions = SessionService(store, agents, records, files, events, history, extraction, starter)
    tools = ToolService(store, sessions, records, manifests, search)
    tools.register(
        "memory",
        files.memory_tool,
        MemoryIn,
        MemoryOut,
        invalid=lambda arguments, exc: memory_input_error(arguments, exc.errors()),
        guard=files.memory_writer,
    )
    tools.register(
        "search_history",
        history_search.search_history,
        SearchHistoryIn,
        HistoryOut,
        invalid=history_input_error,
        guard=history_search.offered,
    )
    ingest = IngestService(sessions, history)
    vectors = build_vectors(store, search)
    return Services(
        settings=settings,
        store=store,
        events=events,
        agents=agents,
        sessions=sessions,
        records=records,
        files=files,
        history=history,
        history_search=history_search,
        agent_search=AgentSearch(store, search, records, history_search),
        tools=tools,
        ingest=ingest,
        audit=AuditService(store, settings.audit_retention_days),
        extraction=extraction,
        starter=starter,
        vectors=vectors,
    )
