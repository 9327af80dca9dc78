"""The one composition root: settings -> adapters -> services. Nothing else picks an adapter."""

from __future__ import annotations

from dataclasses import dataclass

from .domain.ports import Store
from .domain.services.agents import AgentService
from .domain.services.sessions import SessionService
from .settings import Settings


@dataclass(frozen=True)
class Services:
    settings: Settings
    store: Store
    agents: AgentService
    sessions: SessionService

    def close(self) -> None:
        self.store.close()


def build_store(settings: Settings) -> Store:
    if settings.store == "dynamodb":
        # Imported here so the embedded shape never pays for pynamodb and botocore.
        from .adapters.dynamodb import DynamoStore

        assert settings.table_name and settings.region  # checked by Settings
        return DynamoStore(settings.table_name, settings.region, host=settings.dynamodb_endpoint)
    from .adapters.sqlite import SqliteStore

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return SqliteStore(settings.database_path)


def build_services(settings: Settings, store: Store | None = None) -> Services:
    """Wire every service. Tests pass a store of their own to run the same API on any adapter."""
    store = store if store is not None else build_store(settings)
    agents = AgentService(store)
    return Services(
        settings=settings, store=store, agents=agents, sessions=SessionService(store, agents)
    )
