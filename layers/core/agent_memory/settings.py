"""All configuration, read once from `AGENT_MEMORY_*` variables and validated at start."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


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
    webhook_url: str | None = None

    # Cloud shape.
    table_name: str | None = None
    region: str | None = Field(
        default=None, validation_alias=AliasChoices("AGENT_MEMORY_REGION", "AWS_REGION")
    )
    dynamodb_endpoint: str | None = None
    tenant_claim: str = "tenant"
    event_bus_name: str | None = None

    # Search: embeddings default to the offline local model embedded, Bedrock in the cloud.
    embeddings: Literal["local", "bedrock", "none"] | None = None
    bedrock_embedding_model: str = "amazon.titan-embed-text-v2:0"
    bedrock_embedding_dimensions: int = 1024
    opensearch_endpoint: str | None = None
    opensearch_index: str = "agent-memory"
    # Cloud: history events larger than a DynamoDB item go to this bucket.
    history_bucket: str | None = None

    # File memory limits (the spec's defaults).
    memory_bytes: int = Field(default=100 * 1024, ge=1, le=350 * 1024)
    memories_per_agent: int = Field(default=10_000, ge=1)
    memory_index_lines: int = Field(default=200, ge=1)
    memory_index_bytes: int = Field(default=25 * 1024, ge=256)

    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.store == "dynamodb" and not self.table_name:
            raise ValueError("AGENT_MEMORY_TABLE_NAME is required when AGENT_MEMORY_STORE=dynamodb")
        if self.store == "dynamodb" and not self.region:
            raise ValueError("AWS_REGION is required when AGENT_MEMORY_STORE=dynamodb")
        if self.bedrock_embedding_dimensions not in (256, 512, 1024):
            raise ValueError("AGENT_MEMORY_BEDROCK_EMBEDDING_DIMENSIONS is 256, 512 or 1024")
        if not self.binds_loopback and self.token is None:
            raise ValueError(
                f"refusing to listen on {self.host}, which is not a loopback address, without an "
                "explicit token: set AGENT_MEMORY_TOKEN (or --token)"
            )
        return self

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
    def database_path(self) -> Path:
        return self.data_dir / "agent-memory.sqlite3"
