"""Consolidation runs on DynamoDB (a mixin of DynamoStore), mirroring SqliteConsolidations:
an item a run in the agent's own partition (`CR#{runId}`), so deleting the agent deletes them,
and each put checks the agent is live in the same transaction."""

from __future__ import annotations

import json
from functools import cached_property
from itertools import islice

from pynamodb.attributes import UnicodeAttribute
from pynamodb.connection import Connection
from pynamodb.expressions.condition import Condition

from ...domain.extraction.consolidation_models import ConsolidationRun
from ...domain.kernel.errors import NotFound
from . import keys
from .item_base import Item
from .items import Items
from .records import AGENT, live_agent
from .transactions import ConditionsFailed, Transaction, storage_errors


class ConsolidationItem(Item):
    """A run, kept whole as JSON `doc`."""

    doc = UnicodeAttribute()


class DynamoConsolidations:
    _items: Items
    connection: Connection

    @cached_property
    def _runs(self) -> type[ConsolidationItem]:
        # Bound to this store's table and sharing its one connection.
        meta = self._items.item.Meta
        bound = type("ConsolidationItem", (ConsolidationItem,), {"Meta": meta})
        bound._connection = self._items.item._get_connection()
        return bound

    def save_consolidation(self, run: ConsolidationRun) -> None:
        item = self._runs(
            keys.agent_pk(run.tenant, run.agent_id),
            keys.consolidation_sk(run.id),
            doc=run.model_dump_json(),
        )
        head = self._items.agent
        try:
            with Transaction(self.connection) as tx:
                live = live_agent(head)
                tx.check(AGENT, head, keys.agents_pk(run.tenant), keys.agent_sk(run.agent_id), live)
                tx.put(f"run {run.id}", item, None)
        except ConditionsFailed as exc:
            raise NotFound(
                f"agent {run.agent_id!r} does not exist", code="agent_not_found"
            ) from exc

    def list_consolidations(
        self, tenant: str, agent_id: str, limit: int, before: str | None
    ) -> list[ConsolidationRun]:
        if limit <= 0:
            return []
        model = self._runs
        bound: Condition = (
            model.sk.between(keys.CONSOLIDATION, keys.consolidation_sk(before))
            if before
            else model.sk.startswith(keys.CONSOLIDATION)
        )
        with storage_errors():
            found = model.query(
                keys.agent_pk(tenant, agent_id),
                bound,
                scan_index_forward=False,
                consistent_read=True,
                page_size=limit + 1,
            )
            docs = (json.loads(item.doc) for item in found)
            runs = (
                ConsolidationRun.model_validate({**doc, "tenant": tenant})
                for doc in docs
                if before is None or doc["id"] < before
            )
            return list(islice(runs, limit))
