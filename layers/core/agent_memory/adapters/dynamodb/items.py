"""pynamodb items of the single table, and the per-table binding DynamoStore builds from them.

The item classes (a module a capability: agent_items.py, session_items.py, turn_item.py,
record_items.py, file_items.py, history_items.py, usage_items.py, audit_item.py) are templates
without a table: `bind_items` makes subclasses with their own Meta (table name, region,
endpoint) for each store, so two stores never share global state.
Datetimes are kept as ISO 8601 text and manifests as JSON text, exactly as SqliteStore keeps them,
so every model field reads back equal to what was written. Records, their versions, executions,
effects, usage entries and history events are kept whole as a JSON `doc` (the form SqliteStore stores), next to
the few typed attributes a condition, a filter or a stream consumer needs. File memory heads are
all typed attributes, so a listing can project the content away; a file version keeps its
content beside a `doc` of everything else. A history event too large for an item (400 KB) keeps
its `doc` in S3 instead, its item naming the object.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, TypeVar

from pynamodb.connection import Connection, TableConnection
from pynamodb.constants import PAY_PER_REQUEST_BILLING_MODE, STREAM_NEW_AND_OLD_IMAGE

from ...domain.kernel.restore import on_restore
from .agent_items import AgentItem, VersionItem
from .audit_item import AuditItem
from .file_items import FileCountItem, FileItem, FileVersionItem, PreviewFileItem, TenantLimitsItem
from .history_items import EventIdItem, EventItem
from .item_base import Item
from .record_items import RecordItem, RecordVersionItem
from .session_items import EffectIdItem, EffectItem, ExecutionItem, SessionIndexItem, SessionItem
from .turn_item import TurnItem
from .usage_items import UsageItem, UsageTotalItem

M = TypeVar("M", bound="Item")


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

    def forget_client(self) -> None:
        forget_client(self.connection)


def forget_client(connection: Connection) -> None:
    """Make `connection` build a new botocore session and client on its next request (after a
    restore from a snapshot: pooled sockets are dead, resolved credentials were the snapshot's).
    pynamodb makes both lazily, from these two attributes."""
    connection._client = None
    connection._local = threading.local()


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
    record = bound(RecordItem)
    items = Items(
        item=item,
        agent=bound(AgentItem),
        version=bound(VersionItem),
        session=bound(SessionItem),
        turn=bound(TurnItem),
        execution=bound(ExecutionItem),
        effect=bound(EffectItem),
        effect_id=bound(EffectIdItem),
        record=record,
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
        # The record head's, as its schema names the table's one index (the expiring index).
        table=record._get_connection(),
    )
    for cls in (
        items.item,
        items.agent,
        items.version,
        items.session,
        items.turn,
        items.execution,
        items.effect,
        items.effect_id,
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
    on_restore(items.forget_client)
    return items
