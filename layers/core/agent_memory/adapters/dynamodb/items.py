"""pynamodb items of the single table, and the per-table binding DynamoStore builds from them.

The item classes below are templates without a table: `bind_items` makes subclasses with their
own Meta (table name, region, endpoint) for each store, so two stores never share global state.
Datetimes are kept as ISO 8601 text and manifests as JSON text, exactly as SqliteStore keeps them,
so every model field reads back equal to what was written. Records, their versions, executions,
effects, usage entries and history events are kept whole as a JSON `doc` (the form SqliteStore stores), next to
the few typed attributes a condition, a filter or a stream consumer needs. File memory heads are
all typed attributes, so a listing can project the content away; a file version keeps its
content beside a `doc` of everything else. A history event too large for an item (400 KB) keeps
its `doc` in S3 instead, its item naming the object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from pynamodb.attributes import (
    BooleanAttribute,
    JSONAttribute,
    NumberAttribute,
    UnicodeAttribute,
)
from pynamodb.connection import Connection, TableConnection
from pynamodb.constants import PAY_PER_REQUEST_BILLING_MODE, STREAM_NEW_AND_OLD_IMAGE

from ...domain.audit.models import AuditEntry, audit_entry
from ...domain.files.models import FileMemory, FileVersion, PreviewFile
from ...domain.history.models import HistoryEvent
from ...domain.kernel.models import Agent, ManifestVersion, Session
from ...domain.records.models import (
    Execution,
    Record,
    RecordVersion,
    from_doc,
    to_doc,
    version_from_doc,
    version_to_doc,
)
from ...domain.sessions.effects import Effect, effect_from_json
from ...domain.usage.models import Usage, UsageTotal
from . import keys
from .item_base import IsoDateTimeAttribute, Item
from .turn_item import TurnItem

M = TypeVar("M", bound="Item")


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
    reviewed_through = NumberAttribute(null=True)
    metadata = JSONAttribute()
    created_at = IsoDateTimeAttribute()
    owner = UnicodeAttribute(null=True)

    @classmethod
    def of(cls, session: Session) -> SessionItem:
        return cls(
            keys.agent_pk(session.tenant, session.agent_id),
            keys.session_sk(session.id),
            tenant=session.tenant,
            agent_id=session.agent_id,
            session_id=session.id,
            last_sequence=session.last_sequence,
            reviewed_through=session.reviewed_through,
            metadata=session.metadata,
            created_at=session.created_at,
            owner=session.owner,
        )

    def to_session(self) -> Session:
        return Session(
            tenant=self.tenant,
            agent_id=self.agent_id,
            id=self.session_id,
            last_sequence=self.last_sequence,
            reviewed_through=self.reviewed_through or 0,
            metadata=self.metadata,
            created_at=self.created_at,
            owner=self.owner,
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
        return effect_from_json(self.doc)


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


class FileItem(Item):
    """A file memory's head, in typed attributes so a listing can leave the content out."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    path = UnicodeAttribute()
    # Always stored; absent only from listings, which project it away.
    content = UnicodeAttribute(null=True)
    bytes = NumberAttribute()
    content_sha256 = UnicodeAttribute()
    description = UnicodeAttribute(null=True)
    version = NumberAttribute()
    updated_at = IsoDateTimeAttribute()
    updated_by = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, head: FileMemory) -> FileItem:
        # Keyed by the tenant and agent it is written under, as SqliteStore keys its rows.
        return cls(
            keys.files_pk(tenant, agent_id),
            keys.file_sk(head.path),
            tenant=tenant,
            agent_id=agent_id,
            path=head.path,
            content=head.content,
            bytes=head.bytes,
            content_sha256=head.content_sha256,
            description=head.description,
            version=head.version,
            updated_at=head.updated_at,
            updated_by=head.updated_by,
        )

    def to_file(self) -> FileMemory:
        return FileMemory(
            tenant=self.tenant,
            agent_id=self.agent_id,
            path=self.path,
            content=self.content or "",
            bytes=self.bytes,
            content_sha256=self.content_sha256,
            description=self.description,
            version=self.version,
            updated_at=self.updated_at,
            updated_by=self.updated_by,
        )


# What a listing reads of a head: everything but the content, up to 100 KiB a memory.
FILE_SUMMARY = (
    "pk",
    "sk",
    "tenant",
    "agent_id",
    "path",
    "bytes",
    "content_sha256",
    "description",
    "version",
    "updated_at",
    "updated_by",
)


class FileVersionItem(Item):
    """One file version: `doc` is the version without its content, which is kept as it is
    (JSON would escape every newline and quote of it, and items are limited to 400 KB)."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    version_id = UnicodeAttribute()
    # A path's history is its versions with this path or, for a rename, this from_path.
    path = UnicodeAttribute()
    from_path = UnicodeAttribute(null=True)
    content = UnicodeAttribute(null=True)
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, version: FileVersion) -> FileVersionItem:
        return cls(
            keys.file_versions_pk(tenant, agent_id),
            keys.file_version_sk(version.id),
            tenant=tenant,
            agent_id=agent_id,
            version_id=version.id,
            path=version.path,
            from_path=version.from_path,
            content=version.content,
            doc=version.model_dump_json(exclude={"content"}),
        )

    def to_version(self) -> FileVersion:
        return FileVersion.model_validate_json(self.doc).model_copy(
            update={"content": self.content}
        )


class FileCountItem(Item):
    """How many file memories the agent has, moved in the same transaction as the heads."""

    memories = NumberAttribute(null=True)

    @classmethod
    def at(cls, tenant: str, agent_id: str) -> FileCountItem:
        return cls.key(keys.agent_pk(tenant, agent_id), keys.FILE_COUNT)


class PreviewFileItem(Item):
    """A preview turn's change to one path (domain PreviewFile as JSON)."""

    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, change: PreviewFile) -> PreviewFileItem:
        return cls(
            keys.preview_files_pk(tenant, agent_id),
            keys.file_sk(change.path),
            doc=change.model_dump_json(),
        )

    def to_preview(self) -> PreviewFile:
        return PreviewFile.model_validate_json(self.doc)


class TenantLimitsItem(Item):
    """A tenant's own file memory limits (a missing attribute: the deployment's default)."""

    memory_bytes = NumberAttribute(null=True)
    memories_per_agent = NumberAttribute(null=True)

    @classmethod
    def at(cls, tenant: str) -> TenantLimitsItem:
        return cls.key(keys.tenant_limits_pk(tenant), keys.TENANT_LIMITS)


class AuditItem(Item):
    """An audit entry; `ttl` (the table's TTL attribute) is its expiry, when one is set."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute(null=True)
    actor = UnicodeAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, entry: AuditEntry) -> AuditItem:
        return cls(
            keys.audit_pk(entry.tenant),
            keys.audit_sk(entry.id),
            tenant=entry.tenant,
            agent_id=entry.agent_id,
            actor=entry.actor,
            doc=entry.model_dump_json(),
            ttl=entry.expires_at,
        )

    def to_entry(self) -> AuditEntry:
        expires = self.ttl.isoformat() if self.ttl else None
        return audit_entry(self.tenant, expires, self.doc)


class SessionIndexItem(Item):
    """The memory index a session opened with."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    text = UnicodeAttribute()
    built_at = IsoDateTimeAttribute()

    @classmethod
    def of(
        cls, tenant: str, agent_id: str, session_id: str, text: str, built_at: datetime
    ) -> SessionIndexItem:
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.SESSION_INDEX,
            tenant=tenant,
            agent_id=agent_id,
            session_id=session_id,
            text=text,
            built_at=built_at,
        )


class UsageItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    usage_id = UnicodeAttribute()
    turn_id = UnicodeAttribute(null=True)
    purpose = UnicodeAttribute()
    model_id = UnicodeAttribute()
    input_tokens = NumberAttribute()
    output_tokens = NumberAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, usage: Usage) -> UsageItem:
        return cls(
            keys.usage_pk(tenant, agent_id),
            keys.usage_sk(usage.id),
            tenant=tenant,
            agent_id=agent_id,
            usage_id=usage.id,
            turn_id=usage.turn_id,
            purpose=usage.purpose,
            model_id=usage.model_id,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            doc=usage.model_dump_json(),
        )

    def to_usage(self) -> Usage:
        return Usage.model_validate_json(self.doc)


class UsageTotalItem(Item):
    """An agent's calls and tokens of one purpose and model, added to with each entry."""

    purpose = UnicodeAttribute(null=True)
    model_id = UnicodeAttribute(null=True)
    calls = NumberAttribute(null=True)
    input_tokens = NumberAttribute(null=True)
    output_tokens = NumberAttribute(null=True)

    @classmethod
    def at(cls, tenant: str, agent_id: str, purpose: str, model_id: str) -> UsageTotalItem:
        return cls.key(keys.usage_pk(tenant, agent_id), keys.usage_total_sk(purpose, model_id))

    def to_total(self) -> UsageTotal:
        return UsageTotal(
            purpose=self.purpose or "",
            model_id=self.model_id or "",
            calls=int(self.calls or 0),
            input_tokens=int(self.input_tokens or 0),
            output_tokens=int(self.output_tokens or 0),
        )


class EventItem(Item):
    """One history event in (turn, sequence) order: `doc` is HistoryEvent.to_doc() as JSON, or,
    for an event too large for an item, absent while `blob_bucket` and `blob_key` name the S3
    object holding that JSON."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    turn_id = UnicodeAttribute()
    event_id = UnicodeAttribute()
    turn_sequence = NumberAttribute()
    sequence = NumberAttribute()
    role = UnicodeAttribute()
    doc = UnicodeAttribute(null=True)
    blob_bucket = UnicodeAttribute(null=True)
    blob_key = UnicodeAttribute(null=True)
    # How many search documents (parts) the event has: its removal names them all, even when
    # its text is in S3 (and perhaps gone already).
    parts = NumberAttribute(null=True)

    @classmethod
    def of(cls, tenant: str, agent_id: str, session_id: str, event: HistoryEvent) -> EventItem:
        # Keyed by the session it is written under, as SqliteStore keys its rows.
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.event_sk(event.turn_sequence, event.sequence, event.id),
            tenant=tenant,
            agent_id=agent_id,
            session_id=session_id,
            turn_id=event.turn_id,
            event_id=event.id,
            turn_sequence=event.turn_sequence,
            sequence=event.sequence,
            role=event.role,
            doc=event_doc(event),
            parts=len(event.parts),
        )


def event_doc(event: HistoryEvent) -> str:
    # Unescaped non-ASCII: text in any script costs its UTF-8 bytes, not six per character.
    return json.dumps(event.to_doc(), ensure_ascii=False)


def event_of_doc(doc: str | bytes) -> HistoryEvent:
    return HistoryEvent.model_validate(json.loads(doc))


class EventIdItem(Item):
    """Holds an event id of a session, naming the sort key of the event's item."""

    event_sk = UnicodeAttribute()
    turn_id = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, session_id: str, event: HistoryEvent) -> EventIdItem:
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.event_id_sk(event.id),
            event_sk=keys.event_sk(event.turn_sequence, event.sequence, event.id),
            turn_id=event.turn_id,
        )


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
    file: type[FileItem]
    file_version: type[FileVersionItem]
    file_count: type[FileCountItem]
    session_index: type[SessionIndexItem]
    tenant_limits: type[TenantLimitsItem]
    audit: type[AuditItem]
    preview_file: type[PreviewFileItem]
    usage: type[UsageItem]
    usage_total: type[UsageTotalItem]
    event: type[EventItem]
    event_id: type[EventIdItem]
    table: TableConnection

    @property
    def connection(self) -> Connection:
        return self.table.connection


def table_settings(table_name: str, region: str, host: str | None) -> dict[str, Any]:
    """The Meta every item class bound to one table carries."""
    return {
        "table_name": table_name,
        "region": region,
        "host": host,
        "billing_mode": PAY_PER_REQUEST_BILLING_MODE,
        "stream_view_type": STREAM_NEW_AND_OLD_IMAGE,
        # Inside the API's 29 s: a request that hangs is given up and answered 503, not cut off
        # by API Gateway (pynamodb's defaults: 15 s to connect, 30 s to read, 3 retries).
        "connect_timeout_seconds": 2,
        "read_timeout_seconds": 5,
        "max_retry_attempts": 2,
    }


def bind(template: type[M], settings: dict[str, Any]) -> type[M]:
    """An item template subclassed with a Meta naming a table (see table_settings)."""
    meta = type("Meta", (), dict(settings))
    return type(template.__name__, (template,), {"Meta": meta, "__module__": __name__})


def bind_items(table_name: str, region: str, host: str | None) -> Items:
    """Subclass every item template with a Meta naming this table, all sharing one connection."""
    settings = table_settings(table_name, region, host)

    def bound(template: type[M]) -> type[M]:
        return bind(template, settings)

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
        file=bound(FileItem),
        file_version=bound(FileVersionItem),
        file_count=bound(FileCountItem),
        session_index=bound(SessionIndexItem),
        tenant_limits=bound(TenantLimitsItem),
        audit=bound(AuditItem),
        preview_file=bound(PreviewFileItem),
        usage=bound(UsageItem),
        usage_total=bound(UsageTotalItem),
        event=bound(EventItem),
        event_id=bound(EventIdItem),
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
        items.file,
        items.file_version,
        items.file_count,
        items.session_index,
        items.tenant_limits,
        items.audit,
        items.preview_file,
        items.usage,
        items.usage_total,
        items.event,
        items.event_id,
    ):
        cls._connection = items.table
    return items
