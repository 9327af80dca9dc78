"""The cloud's stream workers (part of the composition root, beside bootstrap.py): the indexer
function's stream indexer and the dispatcher function's outbox reader, each wired from the
settings at its function's cold start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .bootstrap import build_cloud_index, build_embedder, build_metrics, metered
from .entity_models import build_entity_model, with_model_entities
from .settings import Settings

if TYPE_CHECKING:
    from .adapters.dynamodb.stream_indexer import StreamIndexer
    from .adapters.extraction.dispatch import Dispatcher


def build_indexer(settings: Settings, embed: bool = True) -> StreamIndexer:
    """The indexer function's stream indexer: the table's record and file heads and history
    events into the cloud index (OpenSearch, or S3 Vectors and word postings), embedded as the
    API embeds queries. Its S3 reads (events too large for an item) go through the store's blob
    adapter, so S3 failures are StorageUnavailable like every other store failure (a failed
    record of the batch, retried by Lambda). `embed` False: one that embeds nothing (a dry run)."""
    if not settings.region or not (
        settings.opensearch_endpoint or settings.search_backend == "s3-vectors"
    ):
        raise ValueError("the indexer needs AGENT_MEMORY_OPENSEARCH_ENDPOINT and AWS_REGION")
    from .adapters.dynamodb.blobs import Blobs
    from .adapters.dynamodb.purge_audit import purge_audit
    from .adapters.dynamodb.stream_indexer import StreamIndexer

    embedder = metered(build_embedder(settings), build_metrics(settings))
    index = build_cloud_index(settings, embedder)
    blobs = Blobs(settings.history_bucket, settings.region)
    entity_model = build_entity_model(settings) if embed else None

    def fetch(bucket: str, key: str) -> str:
        return blobs.get(bucket, key).decode()

    if not settings.table_name:
        return StreamIndexer(index, embedder if embed else None, fetch=fetch)
    from .adapters.dynamodb import DynamoStore
    from .domain.history.service import said_before

    store = DynamoStore(settings.table_name, settings.region, bucket=settings.history_bucket)
    return StreamIndexer(
        with_model_entities(index, entity_model, store.add_usage),  # usage purpose entities
        embedder if embed else None,
        fetch=fetch,
        # A history event's meaning is embedded with the messages said before it, as embedded.
        before=lambda event: said_before(store, event),
        add_usage=store.add_usage,  # each embedding, kept as usage of purpose embed
        # An expired record removed by the table's TTL is kept in the audit trail, once.
        on_purged=purge_audit(store, settings.audit_retention_days),
    )


def build_dispatcher(settings: Settings) -> Dispatcher:
    """The dispatcher function's outbox reader: queued reviews -> Step Functions executions."""
    if not settings.extraction_state_machine_arn:
        raise ValueError("the dispatcher needs AGENT_MEMORY_EXTRACTION_STATE_MACHINE_ARN")
    from .adapters.extraction.dispatch import Dispatcher
    from .adapters.extraction.stepfunctions import StepFunctionsStarter

    return Dispatcher(
        StepFunctionsStarter(settings.extraction_state_machine_arn, region=settings.region)
    )
