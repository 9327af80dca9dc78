"""The items of an export bundle, one JSON object each, and their reading back into the
domain's entities under the importing tenant.

An item is the unit an import writes and keeps once: an agent with its manifest versions, a
run of one record's versions, a run of one file path's versions (the last run with the path's
head), a session, or a turn with its executions and events. Entities travel in their storage
form (field names, not the API's camelCase) without a tenant: the caller's tenant is theirs on
import.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError

from ..agents import parse_manifest
from ..files import FileMemory, FileVersion, normalize_path
from ..history import HistoryEvent
from ..kernel.deferred import DeferredModel
from ..kernel.errors import InvalidRequest, problems_text
from ..kernel.ids import validate_opaque_id
from ..kernel.models import AGENT_SESSION, Agent, ManifestVersion, Session, Turn
from ..records import Execution, RecordVersion
from ..turns import Effect, effect_from_json
from .bundle import VERSIONS_PER_ITEM


class _Item(DeferredModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    agent_id: str = Field(alias="agentId", min_length=1, max_length=512)


class Vector(DeferredModel):
    """One document's embedding, and the model that made it."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    model_id: str = Field(alias="modelId", min_length=1, max_length=256)
    values: list[float] = Field(min_length=1, max_length=8192)


class AgentItem(_Item):
    type: Literal["agent"]
    agent: dict[str, Any]
    manifest_versions: list[ManifestVersion] = Field(alias="manifestVersions", min_length=1)

    def entity(self, tenant: str) -> Agent:
        return Agent.model_validate({**self.agent, "tenant": tenant, "id": self.agent_id})


class RecordItem(_Item):
    """A run of one record's versions, oldest first; the last one's record is the head it
    leaves (the last run of a record leaves its stored head)."""

    type: Literal["record"]
    id: str = Field(min_length=1, max_length=128)
    versions: list[dict[str, Any]] = Field(min_length=1, max_length=VERSIONS_PER_ITEM)
    embedding: Vector | None = None

    def entities(self, tenant: str) -> list[RecordVersion]:
        where = {"tenant": tenant, "agent_id": self.agent_id}
        return [
            RecordVersion.model_validate({**v, "record": {**_object(v.get("record")), **where}})
            for v in self.versions
        ]


class FileItem(_Item):
    """A run of one path's versions, oldest first; `final` on the path's last run, whose
    `head` is the path's stored head (null: no memory has the path now)."""

    type: Literal["file"]
    path: str = Field(min_length=1, max_length=1024)
    versions: list[FileVersion] = Field(min_length=1, max_length=VERSIONS_PER_ITEM)
    final: bool = True
    head: dict[str, Any] | None = None
    embedding: Vector | None = None

    def head_entity(self, tenant: str) -> FileMemory | None:
        if self.head is None:
            return None
        return FileMemory.model_validate(
            {**self.head, "tenant": tenant, "agent_id": self.agent_id, "path": self.path}
        )


class SessionItem(_Item):
    type: Literal["session"]
    session: dict[str, Any]

    def entity(self, tenant: str) -> Session:
        return Session.model_validate({**self.session, "tenant": tenant, "agent_id": self.agent_id})


class TurnItem(_Item):
    """A turn as it ended (or stands, when open), its executions and its events; `vectors`
    the embeddings of its events' search documents by document id, all of `modelId`."""

    type: Literal["turn"]
    session_id: str = Field(alias="sessionId", min_length=1, max_length=256)
    turn: dict[str, Any]
    executions: list[Execution] = Field(default_factory=list)
    # The writes the turn staged, in their storage form (a record's without its tenant).
    effects: list[dict[str, Any]] = Field(default_factory=list)
    events: list[dict[str, Any]] = Field(default_factory=list)
    model_id: str | None = Field(default=None, alias="modelId", max_length=256)
    vectors: dict[str, list[float]] = Field(default_factory=dict)

    def entity(self, tenant: str) -> Turn:
        where = {"tenant": tenant, "agent_id": self.agent_id, "session_id": self.session_id}
        return Turn.model_validate({**self.turn, **where})

    def event_entities(self, tenant: str, turn: Turn) -> list[HistoryEvent]:
        where = {
            "tenant": tenant,
            "agent_id": self.agent_id,
            "session_id": self.session_id,
            "turn_id": turn.id,
            "turn_sequence": turn.sequence,
        }
        return [HistoryEvent.model_validate({**e, **where}) for e in self.events]

    def effect_entities(self, tenant: str) -> list[Effect]:
        found = []
        for doc in self.effects:
            payload = doc.get("payload")
            if isinstance(payload, dict) and isinstance(payload.get("record"), dict):
                record = {**payload["record"], "tenant": tenant, "agent_id": self.agent_id}
                doc = {**doc, "payload": {**payload, "record": record}}
            found.append(effect_from_json(json.dumps(doc)))
        return found


Item = Annotated[
    AgentItem | RecordItem | FileItem | SessionItem | TurnItem, Field(discriminator="type")
]


@cache
def _items() -> TypeAdapter[Any]:
    return TypeAdapter(Item)


def parse_items(tenant: str, agent_id: str, raw: list[Any]) -> list[Any]:
    """Every item of a batch read and checked, entities included, before any is written: the
    first bad one is a 400 naming its place, and the batch changes nothing."""
    items = []
    for n, doc in enumerate(raw):
        try:
            item = _items().validate_python(doc)
            if item.agent_id != agent_id:
                raise InvalidRequest(
                    f"item {n} is of agent {item.agent_id!r}, not of {agent_id!r}",
                    code="invalid_bundle_item",
                )
            _check_entities(item, tenant)
        except ValidationError as exc:
            problems = problems_text(exc.errors(include_url=False))
            raise InvalidRequest(
                f"item {n} is not a bundle item: {problems}", code="invalid_bundle_item"
            ) from exc
        items.append(item)
    return items


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidRequest("a version's record is an object", code="invalid_bundle_item")
    return value


def _check_entities(item: Any, tenant: str) -> None:
    """Read the entities an item carries as dicts, and their ids, so a bad one fails with its
    batch (ids as the service makes them: they become keys in either store)."""
    if isinstance(item, AgentItem):
        item.entity(tenant)
        for saved in item.manifest_versions:  # every request reads the agent's manifest
            parse_manifest(saved.manifest)
    elif isinstance(item, RecordItem):
        validate_opaque_id(item.id, "record")
        if any(v.record.id != item.id for v in item.entities(tenant)):
            raise InvalidRequest(
                f"record item {item.id!r} carries another record's version",
                code="invalid_bundle_item",
            )
    elif isinstance(item, FileItem):
        if normalize_path(item.path) != item.path:
            raise InvalidRequest(f"{item.path!r} is not a memory path", code="invalid_bundle_item")
        item.head_entity(tenant)
        for version in item.versions:
            validate_opaque_id(version.id, "version")
            if version.path != item.path:
                raise InvalidRequest(
                    f"file item {item.path!r} carries another path's version",
                    code="invalid_bundle_item",
                )
    elif isinstance(item, SessionItem):
        _session_id(item.entity(tenant).id)
    elif isinstance(item, TurnItem):
        _session_id(item.session_id)
        turn = item.entity(tenant)
        validate_opaque_id(turn.id, "turn")
        for execution in item.executions:
            validate_opaque_id(execution.id, "execution")
        for event in item.event_entities(tenant, turn):
            validate_opaque_id(event.id, "event")
        item.effect_entities(tenant)


def _session_id(session_id: str) -> None:
    if session_id != AGENT_SESSION:  # the agent's own turns' session
        validate_opaque_id(session_id, "session")
