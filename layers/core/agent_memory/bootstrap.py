"""The one composition root: settings -> adapters -> services. Nothing else picks an adapter."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from .domain.ports import EventPublisher, Store
from .domain.services.agents import AgentService
from .domain.services.records import RecordService
from .domain.services.sessions import SessionService
from .domain.services.tools import ToolService
from .domain.services.turn_context import ManifestCache
from .settings import Settings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Services:
    settings: Settings
    store: Store
    events: EventPublisher
    agents: AgentService
    sessions: SessionService
    records: RecordService
    tools: ToolService

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


def build_events(settings: Settings) -> EventPublisher:
    if settings.event_bus_name:
        from .adapters.events.eventbridge import EventBridgePublisher

        return EventBridgePublisher(settings.event_bus_name, region=settings.region)
    from .adapters.events.local_bus import InProcessBus

    return InProcessBus(webhook_url=settings.webhook_url)


def build_services(
    settings: Settings, store: Store | None = None, events: EventPublisher | None = None
) -> Services:
    """Wire every service. Tests pass adapters of their own to run the same API on any of them."""
    store = store if store is not None else build_store(settings)
    events = events if events is not None else build_events(settings)
    agents = AgentService(store)
    records = RecordService(store, events)
    sessions = SessionService(store, agents, records, events)
    tools = ToolService(store, sessions, records, ManifestCache(store))
    return Services(
        settings=settings,
        store=store,
        events=events,
        agents=agents,
        sessions=sessions,
        records=records,
        tools=tools,
    )
