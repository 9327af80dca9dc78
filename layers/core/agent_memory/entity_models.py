"""The entity model a deployment has (part of the composition root, bootstrap.py): where
AGENT_MEMORY_ENTITY_MODEL names a provider, the model that names entities beside the rules
(domain/search/entity_model.py, loaded only then), run where each shape adds vectors: the embedded shape's worker
thread over the SQLite file's queue, the cloud's stream indexer after each batch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .domain.search.index import SearchIndex
from .domain.search.links import LinkedIndex
from .domain.store import Store
from .settings import Settings

if TYPE_CHECKING:
    from .adapters.sqlite.entity_worker import EntityWorker
    from .domain.search.entity_model import AddUsage, EntityModel


def build_entity_model(settings: Settings) -> EntityModel | None:
    """The configured entity model; None with the rules alone."""
    if settings.entity_model == "bedrock":
        from .adapters.models.entities import BedrockEntityModel

        return BedrockEntityModel(
            model_id=settings.entity_model_id or settings.bedrock_model, region=settings.region
        )
    if settings.entity_model == "openai":
        from .adapters.models.entities import OpenAIEntityModel

        model = settings.entity_model_id or settings.openai_model
        assert settings.openai_base_url and model  # checked by Settings
        key = settings.openai_api_key
        return OpenAIEntityModel(
            base_url=settings.openai_base_url,
            model=model,
            api_key=key.get_secret_value() if key else None,
        )
    return None


def build_entity_worker(
    settings: Settings, store: Store, model: EntityModel | None | bool = True
) -> EntityWorker | None:
    """Embedded shape with an entity model (the settings', or the one tests pass): the index
    queues what it links, and this thread asks the model (the server runs it in background)."""
    model = build_entity_model(settings) if model is True else model or None
    index = getattr(store, "index", None)
    if model is None or index is None or not hasattr(index, "entity_model"):
        return None
    from .adapters.sqlite import SqliteStore
    from .adapters.sqlite.entity_worker import EntityWorker

    assert isinstance(store, SqliteStore)
    index.entity_model = True
    return EntityWorker(store.db, model, store)


def with_model_entities(
    index: SearchIndex, model: EntityModel | None, add_usage: AddUsage | None
) -> SearchIndex:
    """The cloud indexer's index, asking `model` for the keys of what it links (without a
    model, or without links, as it is)."""
    if model is None or not isinstance(index, LinkedIndex):
        return index
    # Imported only where a model is configured: the rules alone, the default, never load it.
    from .domain.search.entity_model import ModelLinkedIndex

    return ModelLinkedIndex(index.inner, index.links, model, add_usage)
