"""pynamodb items of the single table, and the per-table binding DynamoStore builds from them.

The item classes below are templates without a table: `bind_items` makes subclasses with their
own Meta (table name, region, endpoint) for each store, so two stores never share global state.
Datetimes are kept as ISO 8601 text and manifests as JSON text, exactly as SqliteStore keeps them,
so every model field reads back equal to what was written.
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class Items:
    """The item classes bound to one table, and the one connection they all use."""

    item: type[Item]
    agent: type[AgentItem]
    version: type[VersionItem]
    session: type[SessionItem]
    turn: type[TurnItem]
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
    agent, version, session, turn = (
        bound(AgentItem),
        bound(VersionItem),
        bound(SessionItem),
        bound(TurnItem),
    )
    # pynamodb caches a connection (and so a botocore client) per model class; handing the first
    # one to the others gives the whole store one client, which a cold start pays for once.
    table = item._get_connection()
    for cls in (agent, version, session, turn):
        cls._connection = table
    return Items(item=item, agent=agent, version=version, session=session, turn=turn, table=table)
