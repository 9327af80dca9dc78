"""pynamodb items of the single table, and the per-table binding DynamoStore builds from them.

The item classes below are templates without a table: `bind_items` makes subclasses with their
own Meta (table name, region, endpoint) for each store, so two stores never share global state.
Datetimes are kept as ISO 8601 text and manifests as JSON text, exactly as SqliteStore keeps them,
so every model field reads back equal to what was written. Records, their versions, executions
and effects are kept whole as a JSON `doc` (the form SqliteStore stores), next to the few typed
attributes a condition, a filter or a stream consumer needs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from pynamodb.attributes import (
    Attribute,
    BooleanAttribute,
    JSONAttribute,
    NumberAttribute,
    TTLAttribute,
    UnicodeAttribute,
)
from pynamodb.connection import Connection, TableConnection
from pynamodb.constants import PAY_PER_REQUEST_BILLING_MODE, STREAM_NEW_AND_OLD_IMAGE, STRING
from pynamodb.models import Model

from ...domain.models import Agent, ManifestVersion, Session, Turn, TurnStatus
from ...domain.records import (
    Effect,
    Execution,
    Record,
    RecordVersion,
    from_doc,
    to_doc,
    version_from_doc,
    version_to_doc,
)
from . import keys

M = TypeVar("M", bound="Item")


class IsoDateTimeAttribute(Attribute[datetime]):
    """A datetime kept as its ISO 8601 text, offset included, so it reads back exactly."""

    attr_type = STRING

    def serialize(self, value: datetime) -> str:
        return value.isoformat()

    def deserialize(self, value: str) -> datetime:
        return datetime.fromisoformat(value)


class Item(Model):
    """What every item has: its key, and an expiry DynamoDB's TTL sweeper honours when set."""

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True)
    ttl = TTLAttribute(null=True)

    @classmethod
    def key(cls: type[M], pk: str, sk: str) -> M:
        """An instance holding only the key, to update or delete an item without reading it."""
        return cls(pk, sk)


class AgentItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    manifest_version = NumberAttribute()
    manifest = JSONAttribute()
    forked_from = UnicodeAttribute(null=True)
    created_at = IsoDateTimeAttribute()
    updated_at = IsoDateTimeAttribute()
    # Set (true) from the moment a delete starts; a head carrying it is no longer an agent.
    deleting = BooleanAttribute(null=True)

    @classmethod
    def of(cls, agent: Agent) -> AgentItem:
        return cls(
            keys.agents_pk(agent.tenant),
            keys.agent_sk(agent.id),
            tenant=agent.tenant,
            agent_id=agent.id,
            manifest_version=agent.manifest_version,
            manifest=agent.manifest,
            forked_from=agent.forked_from,
            created_at=agent.created_at,
            updated_at=agent.updated_at,
        )

    def to_agent(self) -> Agent:
        return Agent(
            tenant=self.tenant,
            id=self.agent_id,
            manifest_version=self.manifest_version,
            manifest=self.manifest,
            forked_from=self.forked_from,
            created_at=self.created_at,
            updated_at=self.updated_at,
        )


class VersionItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    version = NumberAttribute()
    manifest = JSONAttribute()
    created_at = IsoDateTimeAttribute()

    @classmethod
    def of(cls, tenant: str, version: ManifestVersion) -> VersionItem:
        return cls(
            keys.agent_pk(tenant, version.agent_id),
            keys.version_sk(version.version),
            tenant=tenant,
            agent_id=version.agent_id,
            version=version.version,
            manifest=version.manifest,
            created_at=version.created_at,
        )

    def to_version(self) -> ManifestVersion:
        return ManifestVersion(
            agent_id=self.agent_id,
            version=self.version,
            manifest=self.manifest,
            created_at=self.created_at,
        )


class SessionItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    last_sequence = NumberAttribute()
    metadata = JSONAttribute()
    created_at = IsoDateTimeAttribute()

    @classmethod
    def of(cls, session: Session) -> SessionItem:
        return cls(
            keys.agent_pk(session.tenant, session.agent_id),
            keys.session_sk(session.id),
            tenant=session.tenant,
            agent_id=session.agent_id,
            session_id=session.id,
            last_sequence=session.last_sequence,
            metadata=session.metadata,
            created_at=session.created_at,
        )

    def to_session(self) -> Session:
        return Session(
            tenant=self.tenant,
            agent_id=self.agent_id,
            id=self.session_id,
            last_sequence=self.last_sequence,
            metadata=self.metadata,
            created_at=self.created_at,
        )


class TurnItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    turn_id = UnicodeAttribute()
    sequence = NumberAttribute()
    status = UnicodeAttribute()
    preview = BooleanAttribute()
    replay_of = UnicodeAttribute(null=True)
    started_by = UnicodeAttribute()
    trigger_run_id = UnicodeAttribute(null=True)
    manifest_version = NumberAttribute()
    created_at = IsoDateTimeAttribute()
    ended_at = IsoDateTimeAttribute(null=True)

    @classmethod
    def of(cls, turn: Turn) -> TurnItem:
        return cls(
            keys.session_pk(turn.tenant, turn.agent_id, turn.session_id),
            keys.turn_sk(turn.id),
            tenant=turn.tenant,
            agent_id=turn.agent_id,
            session_id=turn.session_id,
            turn_id=turn.id,
            sequence=turn.sequence,
            status=turn.status.value,
            preview=turn.preview,
            replay_of=turn.replay_of,
            started_by=turn.started_by,
            trigger_run_id=turn.trigger_run_id,
            manifest_version=turn.manifest_version,
            created_at=turn.created_at,
            ended_at=turn.ended_at,
        )

    def to_turn(self) -> Turn:
        return Turn(
            tenant=self.tenant,
            agent_id=self.agent_id,
            session_id=self.session_id,
            id=self.turn_id,
            sequence=self.sequence,
            status=TurnStatus(self.status),
            preview=self.preview,
            replay_of=self.replay_of,
            started_by=self.started_by,
            trigger_run_id=self.trigger_run_id,
            manifest_version=self.manifest_version,
            created_at=self.created_at,
            ended_at=self.ended_at,
        )


class ExecutionItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    turn_id = UnicodeAttribute()
    execution_id = UnicodeAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, session_id: str, execution: Execution) -> ExecutionItem:
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.execution_sk(execution.turn_id, execution.id),
            tenant=tenant,
            agent_id=agent_id,
            session_id=session_id,
            turn_id=execution.turn_id,
            execution_id=execution.id,
            doc=execution.model_dump_json(),
        )

    def to_execution(self) -> Execution:
        return Execution.model_validate_json(self.doc)


class EffectItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    turn_id = UnicodeAttribute()
    sequence = NumberAttribute()
    effect_id = UnicodeAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, session_id: str, effect: Effect) -> EffectItem:
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.effect_sk(effect.turn_id, effect.sequence),
            tenant=tenant,
            agent_id=agent_id,
            session_id=session_id,
            turn_id=effect.turn_id,
            sequence=effect.sequence,
            effect_id=effect.effect_id,
            doc=effect.model_dump_json(),
        )

    def to_effect(self) -> Effect:
        return Effect.model_validate_json(self.doc)


class EffectIdItem(Item):
    """Holds an effect id of a turn, so a second effect with the same id is refused."""

    turn_id = UnicodeAttribute()
    effect_id = UnicodeAttribute()
    sequence = NumberAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, session_id: str, effect: Effect) -> EffectIdItem:
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.effect_id_sk(effect.turn_id, effect.effect_id),
            turn_id=effect.turn_id,
            effect_id=effect.effect_id,
            sequence=effect.sequence,
        )


class RecordItem(Item):
    """A record's head. The typed attributes repeat fields of `doc` for conditions and filters."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    record_id = UnicodeAttribute()
    scope = UnicodeAttribute()
    session_id = UnicodeAttribute(null=True)
    status = UnicodeAttribute()
    kind = UnicodeAttribute()
    preview = BooleanAttribute()
    pinned = BooleanAttribute()
    version = NumberAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, record: Record) -> RecordItem:
        # Keyed by the tenant and agent it is written under, as SqliteStore keys its rows.
        return cls(
            keys.records_pk(tenant, agent_id),
            keys.record_sk(record.id),
            tenant=tenant,
            agent_id=agent_id,
            record_id=record.id,
            scope=record.scope,
            session_id=record.session_id,
            status=record.status.value,
            kind=record.kind,
            preview=record.preview,
            pinned=record.pinned,
            version=record.version,
            doc=json.dumps(to_doc(record)),
        )

    def to_record(self) -> Record:
        return from_doc(json.loads(self.doc))


class RecordVersionItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    record_id = UnicodeAttribute()
    version = NumberAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(
        cls, tenant: str, agent_id: str, record_id: str, version: RecordVersion
    ) -> RecordVersionItem:
        return cls(
            keys.record_versions_pk(tenant, agent_id, record_id),
            keys.record_version_sk(version.record.version),
            tenant=tenant,
            agent_id=agent_id,
            record_id=record_id,
            version=version.record.version,
            doc=json.dumps(version_to_doc(version)),
        )

    def to_version(self) -> RecordVersion:
        return version_from_doc(json.loads(self.doc))


@dataclass(frozen=True)
class Items:
    """The item classes bound to one table, and the one connection they all use."""

    item: type[Item]
    agent: type[AgentItem]
    version: type[VersionItem]
    session: type[SessionItem]
    turn: type[TurnItem]
    execution: type[ExecutionItem]
    effect: type[EffectItem]
    effect_id: type[EffectIdItem]
    record: type[RecordItem]
    record_version: type[RecordVersionItem]
    table: TableConnection

    @property
    def connection(self) -> Connection:
        return self.table.connection


def bind_items(table_name: str, region: str, host: str | None) -> Items:
    """Subclass every item template with a Meta naming this table, all sharing one connection."""
    settings: dict[str, Any] = {
        "table_name": table_name,
        "region": region,
        "host": host,
        "billing_mode": PAY_PER_REQUEST_BILLING_MODE,
        "stream_view_type": STREAM_NEW_AND_OLD_IMAGE,
    }

    def bound(template: type[M]) -> type[M]:
        meta = type("Meta", (), dict(settings))
        return type(template.__name__, (template,), {"Meta": meta, "__module__": __name__})

    item = bound(Item)
    items = Items(
        item=item,
        agent=bound(AgentItem),
        version=bound(VersionItem),
        session=bound(SessionItem),
        turn=bound(TurnItem),
        execution=bound(ExecutionItem),
        effect=bound(EffectItem),
        effect_id=bound(EffectIdItem),
        record=bound(RecordItem),
        record_version=bound(RecordVersionItem),
        # pynamodb caches a connection (and so a botocore client) per model class; handing the
        # first one to the others gives the whole store one client, paid for once per cold start.
        table=item._get_connection(),
    )
    for cls in (
        items.agent,
        items.version,
        items.session,
        items.turn,
        items.execution,
        items.effect,
        items.effect_id,
        items.record,
        items.record_version,
    ):
        cls._connection = items.table
    return items
