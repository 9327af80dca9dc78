"""All configuration, read once from `AGENT_MEMORY_*` variables and validated at start."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# A token that guards a server others can reach: long enough that guessing it is hopeless.
MIN_EXPOSED_TOKEN_CHARS = 32


class Settings(BaseSettings):
    """The service's settings. A missing or contradictory value fails at start, not on a request."""

    model_config = SettingsConfigDict(env_prefix="AGENT_MEMORY_", extra="ignore", frozen=True)

    store: Literal["sqlite", "dynamodb"] = "sqlite"

    # Embedded shape.
    data_dir: Path = Path("./data")
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)
    token: SecretStr | None = None
    threads: int = Field(default=16, ge=2, le=256)
    # Limits of what one client may take: requests a minute per token (0: no limit) with a
    # burst, open connections (all, and per client address), idle seconds before a connection
    # is closed, seconds a request may take to send its headers and its body, event streams
    # per tenant.
    requests_per_minute: int = Field(default=12_000, ge=0)
    request_burst: int = Field(default=2_000, ge=1)
    max_connections: int = Field(default=256, ge=1, le=10_000)
    connections_per_client: int = Field(default=64, ge=1)
    idle_timeout_seconds: int = Field(default=30, ge=1)
    header_timeout_seconds: int = Field(default=10, ge=1)
    body_timeout_seconds: int = Field(default=60, ge=1)
    event_streams_per_tenant: int = Field(default=4, ge=1)
    # Requests of one tenant the embedded server runs at once (more wait their turn): so one
    # tenant's load cannot slow another's requests by more than about twice.
    tenant_running_requests: int = Field(default=1, ge=1)
    webhook_url: str | None = None
    # The web console at `/` (both shapes; the cloud template's Console parameter sets it).
    console: bool = True
    # FULL: every commit is on disk when it is acknowledged, power loss included; NORMAL is
    # faster and may lose the last commits to a power cut (never to a crash of the process).
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    # Standard Webhooks signing secret (`whsec_` + base64 of >= 24 random bytes); required
    # with webhook_url: a receiver must be able to tell a delivery from a forgery.
    webhook_secret: SecretStr | None = None

    # Cloud shape.
    table_name: str | None = None
    region: str | None = Field(
        default=None, validation_alias=AliasChoices("AGENT_MEMORY_REGION", "AWS_REGION")
    )
    dynamodb_endpoint: str | None = None
    tenant_claim: str = "tenant"
    # The JWT claim listing the caller roles (agent, helper, programmatic, agent_as_tool) a
    # credential may state; a JWT without it may state any.
    roles_claim: str = "roles"
    event_bus_name: str | None = None

    # Search: embeddings default to the offline local model embedded, Bedrock in the cloud.
    embeddings: Literal["local", "bedrock", "none"] | None = None
    bedrock_embedding_model: str = "amazon.titan-embed-text-v2:0"
    bedrock_embedding_dimensions: int = 1024
    opensearch_endpoint: str | None = None
    opensearch_index: str = "agent-memory"
    # Cloud: where the stream indexer puts documents and searches look. s3-vectors keeps vectors
    # in this vector bucket (an index per agent) and words in the table (docs/cost.md).
    search_backend: Literal["opensearch-serverless", "s3-vectors"] = "opensearch-serverless"
    s3vectors_bucket: str | None = None
    # How history search weighs words, meaning and its boosts: the hand-set weights (fixed), or
    # the linear model benchmarks/train_fusion.py fitted on the dev sets (learned;
    # domain/search/fusion.py).
    search_fusion: Literal["fixed", "learned"] = "fixed"
    # Rerank (a manifest's harness.memory.search.rerank picks a provider and its model): where
    # each provider is. Bedrock is there wherever a region is (the cloud's choice); an HTTP
    # /rerank service at its base URL; local ONNX cross-encoders in directories under one root.
    rerank_http_base_url: str | None = None
    rerank_http_api_key: SecretStr | None = None
    # text-embeddings-inference reads `texts`; Cohere, Jina, vLLM and llama.cpp `documents`.
    rerank_http_field: Literal["documents", "texts"] = "documents"
    rerank_onnx_dir: Path | None = None
    # Past this a rerank is abandoned and the search keeps its first-stage order.
    rerank_timeout_seconds: float = Field(default=2.0, gt=0.0, le=30.0)
    # Cloud: history events larger than a DynamoDB item go to this bucket.
    history_bucket: str | None = None

    # Post-turn extraction: the model that reviews committed turns. Default: the offline
    # rule-based extractor embedded, Bedrock Converse in the cloud; "none" turns reviews off.
    extraction_model: Literal["rule_based", "openai", "bedrock", "none"] | None = None
    bedrock_model: str = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
    openai_base_url: str | None = None
    openai_model: str | None = None
    openai_api_key: SecretStr | None = None
    # Entity links: the model that names the entities of records, file memories and history
    # events beside the offline rules (domain/search/entity_model.py). "rules": none, the rules
    # alone (the default). bedrock and openai use the extraction's settings above (region;
    # base URL and key) with entity_model_id, or else the extraction's model.
    entity_model: Literal["rules", "bedrock", "openai"] = "rules"
    entity_model_id: str | None = Field(default=None, min_length=1, max_length=256)
    # Cloud: reviews run as executions of this state machine. Embedded: an in-process worker
    # with a bounded queue (pending reviews stay in the SQLite file and survive a restart).
    extraction_state_machine_arn: str | None = None
    extraction_queue_size: int = Field(default=1_000, ge=1, le=100_000)
    extraction_attempts: int = Field(default=3, ge=1, le=10)
    extraction_backoff_seconds: float = Field(default=1.0, ge=0.0, le=300.0)

    # File memory limits (the spec's defaults).
    memory_bytes: int = Field(default=100 * 1024, ge=1, le=350 * 1024)
    memories_per_agent: int = Field(default=10_000, ge=1)
    memory_index_lines: int = Field(default=200, ge=1)
    memory_index_bytes: int = Field(default=25 * 1024, ge=256)

    # Embedded: how often the sweeper writes down expired records and purges those past their
    # tenant's retention (reads judge expiry at once, whatever this says).
    expiry_sweep_seconds: float = Field(default=60.0, gt=0.0, le=86_400.0)
    # Embedded: how often the worker looks for agents whose scheduled consolidation is due.
    consolidation_check_seconds: float = Field(default=300.0, gt=0.0, le=86_400.0)

    # Audit entries are kept this many days (DynamoDB's TTL removes them; 0: kept for ever).
    audit_retention_days: int = Field(default=365, ge=0, le=36_500)

    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    # Cloud: the CloudWatch namespace of the service's metrics (EMF), Powertools' variable too.
    metrics_namespace: str = Field(
        default="agent-memory",
        validation_alias=AliasChoices(
            "AGENT_MEMORY_METRICS_NAMESPACE", "POWERTOOLS_METRICS_NAMESPACE"
        ),
    )
    # Cloud: trace each invocation with Powertools' Tracer (X-Ray); the template's Tracing
    # parameter sets it. Off by default: the tracer's SDK is imported only when it is on.
    tracing: bool = False

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.store == "dynamodb" and not self.table_name:
            raise ValueError("AGENT_MEMORY_TABLE_NAME is required when AGENT_MEMORY_STORE=dynamodb")
        if self.store == "dynamodb" and not self.region:
            raise ValueError("AWS_REGION is required when AGENT_MEMORY_STORE=dynamodb")
        if self.search_backend == "s3-vectors" and not (
            self.s3vectors_bucket and self.table_name and self.region
        ):
            raise ValueError(
                "AGENT_MEMORY_SEARCH_BACKEND=s3-vectors needs AGENT_MEMORY_S3VECTORS_BUCKET, "
                "AGENT_MEMORY_TABLE_NAME (its word postings live in the table) and AWS_REGION"
            )
        if self.extraction_model == "openai" and not (self.openai_base_url and self.openai_model):
            raise ValueError(
                "AGENT_MEMORY_EXTRACTION_MODEL=openai needs AGENT_MEMORY_OPENAI_BASE_URL and "
                "AGENT_MEMORY_OPENAI_MODEL"
            )
        if self.entity_model == "openai" and not (
            self.openai_base_url and (self.entity_model_id or self.openai_model)
        ):
            raise ValueError(
                "AGENT_MEMORY_ENTITY_MODEL=openai needs AGENT_MEMORY_OPENAI_BASE_URL and "
                "AGENT_MEMORY_ENTITY_MODEL_ID (or AGENT_MEMORY_OPENAI_MODEL)"
            )
        if self.entity_model == "bedrock" and not self.region:
            raise ValueError("AGENT_MEMORY_ENTITY_MODEL=bedrock needs AWS_REGION")
        if self.bedrock_embedding_dimensions not in (256, 512, 1024):
            raise ValueError("AGENT_MEMORY_BEDROCK_EMBEDDING_DIMENSIONS is 256, 512 or 1024")
        if not self.binds_loopback and self.token is None:
            raise ValueError(
                f"Not listening on {self.host} without a token of your own: it is not a loopback "
                "address, so anyone who reaches it could use the API. Pass --token (or set "
                f"AGENT_MEMORY_TOKEN) to one of at least {MIN_EXPOSED_TOKEN_CHARS} characters, "
                "or listen on 127.0.0.1."
            )
        token = self.token.get_secret_value() if self.token else ""
        if not self.binds_loopback and len(token) < MIN_EXPOSED_TOKEN_CHARS:
            raise ValueError(
                f"Not listening on {self.host} with a token of {len(token)} characters: it is "
                "not a loopback address, so the token must be at least "
                f"{MIN_EXPOSED_TOKEN_CHARS} characters. Make one with "
                'python -c "import secrets; print(secrets.token_urlsafe(32))" and pass it with '
                "--token (or AGENT_MEMORY_TOKEN), or listen on 127.0.0.1."
            )
        if self.webhook_url:
            from .adapters.events.webhook_delivery import check_url

            check_url(self.webhook_url)
        if self.webhook_url and self.webhook_secret is None:
            raise ValueError(
                "AGENT_MEMORY_WEBHOOK_URL needs AGENT_MEMORY_WEBHOOK_SECRET (whsec_ and the base64 "
                "of at least 24 random bytes): every delivery is signed"
            )
        if self.webhook_secret is not None:
            self.webhook_key  # noqa: B018 - a malformed secret fails start, not a delivery
        return self

    @property
    def webhook_key(self) -> bytes | None:
        from .adapters.events.webhooks import secret_key

        if self.webhook_secret is None:
            return None
        return secret_key(self.webhook_secret.get_secret_value())

    @property
    def binds_loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    @property
    def embedder_kind(self) -> str:
        if self.embeddings is not None:
            return self.embeddings
        return "bedrock" if self.store == "dynamodb" else "local"

    @property
    def extraction_model_kind(self) -> str:
        if self.extraction_model is not None:
            return self.extraction_model
        return "bedrock" if self.store == "dynamodb" else "rule_based"

    @property
    def database_path(self) -> Path:
        return self.data_dir / "agent-memory.sqlite3"
