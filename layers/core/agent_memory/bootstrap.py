"""The one composition root: settings -> adapters -> services, for the embedded server, the CLI
and every Lambda function (api, ingest, extraction, indexer, dispatcher). Nothing else picks an
adapter or reads the environment."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .domain.agents.named_manifest_service import NamedManifestService
from .domain.agents.search import AgentSearch
from .domain.agents.service import AgentService
from .domain.audit.service import AuditService
from .domain.extraction.approval import ProposalReview
from .domain.extraction.consolidation import ConsolidationService
from .domain.extraction.model import MemoryModel
from .domain.extraction.ports import ExtractionStarter
from .domain.extraction.service import ExtractionService
from .domain.files.io import MemoryIn, MemoryOut, memory_input_error
from .domain.files.service import FileLimits, FileService
from .domain.history.io import HistoryOut, SearchHistoryIn
from .domain.history.search import HistorySearch, history_input_error
from .domain.history.service import HistoryService
from .domain.kernel.events import EventPublisher
from .domain.kernel.metrics import NO_METRICS, Metrics
from .domain.records.ports import ExpirySweep
from .domain.records.service import RecordService
from .domain.search.embeddings import Embedder, MeteredEmbedder
from .domain.search.index import SearchIndex
from .domain.search.service import SearchService
from .domain.sessions.ingest import IngestService
from .domain.sessions.service import SessionService
from .domain.store import Store
from .domain.tools.service import ToolService
from .domain.transfer import transfer_of
from .domain.turns.context import ManifestCache
from .entity_models import build_entity_worker
from .rerankers import build_rerank
from .services import Services
from .settings import Settings

if TYPE_CHECKING:
    from .adapters.consolidation_worker import ConsolidationWorker
    from .adapters.expiry_worker import ExpiryWorker
    from .adapters.sqlite.vectors import BackgroundEmbedder
    from .domain.search.entity_model import EntityModel

logger = logging.getLogger(__name__)


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


def build_metrics(settings: Settings) -> Metrics:
    """The cloud counts as CloudWatch metrics (EMF lines in its log); embedded keeps none."""
    if settings.store != "dynamodb":
        return NO_METRICS
    from .adapters.observability import PowertoolsMetrics

    return PowertoolsMetrics(settings.metrics_namespace)


def metered(embedder: Embedder | None, metrics: Metrics) -> Embedder | None:
    """The embedder, its tokens counted where metrics are kept."""
    if embedder is None or metrics is NO_METRICS:
        return embedder
    return MeteredEmbedder(embedder, metrics)


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
    from .adapters.extraction.worker import ExtractionWorker

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


def build_search(
    settings: Settings, store: Store, embedder: Embedder | None, metrics: Metrics = NO_METRICS
) -> SearchService:
    """Embedded: the index lives in the SQLite file and is written with each commit. Cloud:
    OpenSearch Serverless or S3 Vectors (AGENT_MEMORY_SEARCH_BACKEND), fed by the stream indexer;
    without either, lexical in-process."""
    rerank = build_rerank(settings, metrics)
    fusion = None
    if settings.search_fusion == "learned":
        from .domain.search.fusion import learned

        fusion = learned()
    attach = getattr(store, "attach_index", None)
    index: SearchIndex | None = None
    if attach is not None:
        index = attach(
            embedder.model_id if embedder else None, embedder.dimensions if embedder else None
        )
    elif settings.search_backend == "s3-vectors" or settings.opensearch_endpoint:
        index = build_cloud_index(settings, embedder, timeout=5.0)  # three tries inside 29 s
    return SearchService(
        index, embedder, inline=attach is not None, metrics=metrics, rerank=rerank, fusion=fusion
    )


def build_cloud_index(
    settings: Settings, embedder: Embedder | None, timeout: float = 10.0
) -> SearchIndex:
    """The cloud's search index (AGENT_MEMORY_SEARCH_BACKEND), its vectors of `embedder`'s
    model and size: S3 Vectors or OpenSearch Serverless, entity links in the table beside it."""
    from .adapters.dynamodb.entity_links import linked_index

    index = _cloud_index(settings, embedder, timeout)
    return linked_index(index, settings.table_name, settings.region, settings.dynamodb_endpoint)


def _cloud_index(settings: Settings, embedder: Embedder | None, timeout: float) -> SearchIndex:
    if settings.search_backend == "s3-vectors":
        from .adapters.s3vectors.index import connect as s3vectors

        assert settings.s3vectors_bucket and settings.table_name and settings.region  # Settings
        return s3vectors(
            settings.s3vectors_bucket,
            settings.region,
            settings.table_name,
            embedder.dimensions if embedder else 0,
            model_id=embedder.model_id if embedder else None,
            host=settings.dynamodb_endpoint,
        )
    from .adapters.opensearch import connect

    assert settings.opensearch_endpoint and settings.region
    return connect(
        settings.opensearch_endpoint,
        settings.region,
        settings.opensearch_index,
        embedder.dimensions if embedder else 0,
        model_id=embedder.model_id if embedder else None,
        timeout=timeout,
    )


def build_services(
    settings: Settings,
    store: Store | None = None,
    events: EventPublisher | None = None,
    embedder: Embedder | None | bool = True,
    model: MemoryModel | None | bool = True,
    entity_model: EntityModel | None | bool = True,
) -> Services:
    """Wire every service. Tests pass adapters of their own to run the same API on any of them."""
    store = store if store is not None else build_store(settings)
    events = events if events is not None else build_events(settings)
    metrics = build_metrics(settings)
    chosen = build_embedder(settings) if embedder is True else (embedder or None)
    search = build_search(settings, store, metered(chosen, metrics), metrics)
    files = FileService(store, events, file_limits(settings), search)
    manifests = ManifestCache(store)
    agents = AgentService(store, files, manifests, search)
    records = RecordService(store, events, search, manifests)
    history = HistoryService(store, manifests, search)
    history_search = HistorySearch(store, manifests, search)
    chosen_model = build_model(settings) if model is True else (model or None)
    extraction = (
        ExtractionService(store, manifests, records, events, chosen_model, metrics)
        if chosen_model is not None
        else None
    )
    starter = build_starter(settings, store, extraction) if extraction is not None else None
    sessions = SessionService(
        store, agents, records, files, events, history, extraction, starter, metrics
    )
    tools = ToolService(store, sessions, records, manifests, search, metrics)
    register_area_tools(tools, files, history_search)
    ingest = IngestService(sessions, history)
    vectors = build_vectors(store, search)
    audit = AuditService(store, settings.audit_retention_days)
    consolidation = ConsolidationService(store, manifests, records, events)
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
        audit=audit,
        agent_manifests=NamedManifestService(store, agents),
        proposals=ProposalReview(store, records, events),
        make_transfer=lambda: transfer_of(store, search, history, files),
        extraction=extraction,
        starter=starter,
        vectors=vectors,
        entities=build_entity_worker(settings, store, entity_model),
        expiry=build_expiry(settings, store, search, events, audit),
        consolidation=consolidation,
        consolidations=build_consolidations(settings, store, consolidation),
    )


def build_consolidations(
    settings: Settings, store: Store, service: ConsolidationService
) -> ConsolidationWorker | None:
    """What runs scheduled consolidations (harness.memory.consolidation.every): started as a
    thread by the embedded server only (the cloud's state machine runs consolidation_steps)."""
    from .domain.extraction.ports import ConsolidationSchedule

    if not isinstance(store, ConsolidationSchedule):
        return None
    from .adapters.consolidation_worker import ConsolidationWorker

    return ConsolidationWorker(store, store, service, settings.consolidation_check_seconds)


def build_expiry(
    settings: Settings,
    store: Store,
    search: SearchService,
    events: EventPublisher,
    audit: AuditService,
) -> ExpiryWorker | None:
    """Embedded shape: the sweeper's thread. The cloud's purge is DynamoDB's TTL."""
    if not isinstance(store, ExpirySweep):
        return None
    from .adapters.expiry_worker import ExpiryWorker
    from .domain.records.sweeper import ExpirySweeper

    sweeper = ExpirySweeper(store, store, search, events, audit)
    return ExpiryWorker(sweeper, settings.expiry_sweep_seconds)


def file_limits(settings: Settings) -> FileLimits:
    """The /memories limits the settings name (the tenant may lower them)."""
    return FileLimits(
        memory_bytes=settings.memory_bytes,
        memories_per_agent=settings.memories_per_agent,
        index_lines=settings.memory_index_lines,
        index_bytes=settings.memory_index_bytes,
    )


def register_area_tools(tools: ToolService, files: FileService, history: HistorySearch) -> None:
    """The tools other areas own beside the record tools: file memory's `memory` and
    history's `search_history`, each with its input and output models and its guard."""
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
        history.search_history,
        SearchHistoryIn,
        HistoryOut,
        invalid=history_input_error,
        guard=history.offered,
    )
