"""Which agents are consolidated on a schedule, on DynamoDB (a mixin of DynamoStore).

SqliteStore answers with one query over its agents' manifests; a table has no such query short
of a Scan of every item of every tenant. So each agent whose manifest sets
harness.memory.consolidation.every keeps a marker in one partition (keys.py), put or removed
in the same transaction that writes its manifest, and removed when the agent is deleted: the
scheduled function lists the partition with one Query.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

from pynamodb.attributes import UnicodeAttribute

from ...domain.kernel.models import Agent
from . import keys
from .item_base import Item
from .items import Items
from .transactions import Transaction, storage_errors


class ScheduleItem(Item):
    """An agent consolidated every `every` (the manifest's ISO 8601 duration, as written)."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    every = UnicodeAttribute()


def scheduled_every(manifest: Mapping[str, Any]) -> str | None:
    """The manifest's harness.memory.consolidation.every, None when it sets none."""
    found: Any = manifest
    for name in ("harness", "memory", "consolidation", "every"):
        if not isinstance(found, Mapping):
            return None
        found = found.get(name)
    return None if found is None else str(found)


class DynamoConsolidationSchedule:
    _items: Items

    @cached_property
    def _schedule(self) -> type[ScheduleItem]:
        # Bound to this store's table and sharing its one connection.
        meta = self._items.item.Meta
        bound: type[ScheduleItem] = type("ScheduleItem", (ScheduleItem,), {"Meta": meta})
        bound._connection = self._items.item._get_connection()
        return bound

    def _marker(self, tenant: str, agent_id: str) -> ScheduleItem:
        return self._schedule(
            keys.CONSOLIDATION_SCHEDULE_PK, keys.consolidation_schedule_sk(tenant, agent_id)
        )

    def schedule_in(self, tx: Transaction, agent: Agent, *, created: bool) -> None:
        """Put the agent's marker in `tx` when its manifest sets `every`, else remove it (a
        new agent has none to remove)."""
        marker = self._marker(agent.tenant, agent.id)
        every = scheduled_every(agent.manifest)
        if every is not None:
            marker.tenant, marker.agent_id, marker.every = agent.tenant, agent.id, every
            tx.put("schedule", marker, None)
        elif not created:
            tx.delete("schedule", marker, None)

    def unschedule(self, tenant: str, agent_id: str) -> None:
        """Remove the agent's marker (deleting it); absent already is fine."""
        with storage_errors():
            self._marker(tenant, agent_id).delete()

    def scheduled_consolidations(self) -> list[tuple[str, str, str]]:
        with storage_errors():
            found = self._schedule.query(
                keys.CONSOLIDATION_SCHEDULE_PK,
                self._schedule.sk.startswith(keys.CONSOLIDATION_SCHEDULE),
                consistent_read=True,
            )
            return [(item.tenant, item.agent_id, item.every) for item in found]
