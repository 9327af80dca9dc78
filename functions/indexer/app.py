"""Indexer function: the table's stream -> the search index (record and file heads, history
events): OpenSearch Serverless, or S3 Vectors and word postings (AGENT_MEMORY_SEARCH_BACKEND)."""

from typing import Literal

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from agent_memory.adapters.embeddings.bedrock import (
    TITAN_DIMENSIONS,
    TITAN_TEXT_V2,
    BedrockEmbedder,
)
from agent_memory.adapters.opensearch import connect
from agent_memory.domain.search.index import SearchIndex
from agent_memory.indexing.stream import StreamIndexer


class IndexerSettings(BaseSettings):
    """What the indexer reads from its environment. The embedding model and size also answer to
    the API's names (AGENT_MEMORY_BEDROCK_EMBEDDING_*), so one value serves both functions."""

    model_config = SettingsConfigDict(env_prefix="AGENT_MEMORY_", populate_by_name=True)

    search_backend: Literal["opensearch-serverless", "s3-vectors"] = "opensearch-serverless"
    opensearch_endpoint: str | None = None
    s3vectors_bucket: str | None = None
    opensearch_index: str = "agent-memory"
    # The table (and the bucket of large history events): a history event's meaning is
    # embedded with the message said before it, read from there.
    table_name: str | None = None
    history_bucket: str | None = None
    embedding_model: str = Field(
        default=TITAN_TEXT_V2,
        validation_alias=AliasChoices(
            "embedding_model",
            "AGENT_MEMORY_EMBEDDING_MODEL",
            "AGENT_MEMORY_BEDROCK_EMBEDDING_MODEL",
        ),
    )
    embedding_dimensions: int = Field(
        default=1024,
        validation_alias=AliasChoices(
            "embedding_dimensions",
            "AGENT_MEMORY_EMBEDDING_DIMENSIONS",
            "AGENT_MEMORY_BEDROCK_EMBEDDING_DIMENSIONS",
        ),
    )
    region: str = Field(validation_alias=AliasChoices("region", "AWS_REGION", "AWS_DEFAULT_REGION"))

    @field_validator("embedding_dimensions")
    @classmethod
    def _titan_size(cls, value: int) -> int:
        # An int checked here, not a Literal: environment values arrive as text, and a Literal
        # of ints refuses "512".
        if value not in TITAN_DIMENSIONS:
            raise ValueError(f"must be one of {TITAN_DIMENSIONS}")
        return value

    @model_validator(mode="after")
    def _backend(self) -> "IndexerSettings":
        # Checked at cold start: a stack wired for one backend without its resource fails here.
        if self.search_backend == "s3-vectors" and not (self.s3vectors_bucket and self.table_name):
            raise ValueError(
                "s3-vectors needs s3vectors_bucket and table_name (AGENT_MEMORY_S3VECTORS_BUCKET, _TABLE_NAME)"
            )
        if self.search_backend == "opensearch-serverless" and not self.opensearch_endpoint:
            raise ValueError(
                "opensearch-serverless needs opensearch_endpoint (AGENT_MEMORY_OPENSEARCH_ENDPOINT)"
            )
        return self


def build_index(settings: IndexerSettings) -> SearchIndex:
    if settings.search_backend == "s3-vectors":
        from agent_memory.adapters.s3vectors.index import connect as s3vectors

        assert settings.s3vectors_bucket and settings.table_name  # checked above
        return s3vectors(
            settings.s3vectors_bucket,
            settings.region,
            settings.table_name,
            settings.embedding_dimensions,
            model_id=settings.embedding_model,
        )
    assert settings.opensearch_endpoint  # checked above
    return connect(
        settings.opensearch_endpoint,
        settings.region,
        settings.opensearch_index,
        settings.embedding_dimensions,
        model_id=settings.embedding_model,
    )


def build_indexer(settings: IndexerSettings) -> StreamIndexer:
    embedder = BedrockEmbedder(
        model_id=settings.embedding_model,
        dimensions=settings.embedding_dimensions,
        region=settings.region,
    )
    index = build_index(settings)
    before = None
    add_usage = None
    if settings.table_name:
        from agent_memory.adapters.dynamodb import DynamoStore
        from agent_memory.domain.services.history import said_before

        store = DynamoStore(settings.table_name, settings.region, bucket=settings.history_bucket)

        def before(event):  # noqa: ANN001, ANN202 - a closure over the store
            return said_before(store, event)

        add_usage = store.add_usage  # each embedding, kept as usage of purpose embed

    return StreamIndexer(
        index, embedder, fetch=s3_reader(settings.region), before=before, add_usage=add_usage
    )


def s3_reader(region: str):  # noqa: ANN201 - a small closure over a lazily made client
    """Reads history events kept in S3 (those too large for a DynamoDB item)."""
    client = None

    def fetch(bucket: str, key: str) -> str:
        nonlocal client
        if client is None:
            import boto3

            client = boto3.client("s3", region_name=region)
        return str(client.get_object(Bucket=bucket, Key=key)["Body"].read().decode())

    return fetch


logger = Logger()
indexer = build_indexer(IndexerSettings())  # parsed and wired at cold start: bad config fails here


@logger.inject_lambda_context
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return indexer.process(event, context)
