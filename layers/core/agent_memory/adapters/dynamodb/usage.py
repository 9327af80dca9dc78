"""Usage of models on DynamoDB (a mixin of DynamoStore), mirroring SqliteUsage.

Each entry is an item; the agent's totals are one item per purpose and model, added to in the
same TransactWriteItems as the entries, so they always equal the sum of the entries kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice, takewhile

from pynamodb.connection import Connection
from pynamodb.expressions.condition import Condition

from ...domain.kernel.errors import PreconditionFailed
from ...domain.usage.models import Usage, UsageTotal
from . import keys
from .items import Items
from .records import AGENT, live_agent
from .transactions import ConditionsFailed, Transaction, storage_errors

# Entries per transaction: each may add a total too, and the agent check takes one action.
_CHUNK = 40


class DynamoUsage:
    _items: Items
    connection: Connection

    def add_usage(self, tenant: str, agent_id: str, entries: Sequence[Usage]) -> None:
        """One transaction per 40 entries (SqliteUsage takes any number in one): each keeps its
        entries and adds them to the totals together."""
        for start in range(0, len(entries), _CHUNK):
            self._add_usage(tenant, agent_id, entries[start : start + _CHUNK])

    def _add_usage(self, tenant: str, agent_id: str, entries: Sequence[Usage]) -> None:
        model, total = self._items.usage, self._items.usage_total
        sums: dict[tuple[str, str], list[int]] = {}
        for entry in entries:
            counted = sums.setdefault((entry.purpose, entry.model_id), [0, 0, 0])
            counted[0] += 1
            counted[1] += entry.input_tokens
            counted[2] += entry.output_tokens
        head = self._items.agent
        try:
            with Transaction(self.connection) as tx:
                live = live_agent(head)
                tx.check(AGENT, head, keys.agents_pk(tenant), keys.agent_sk(agent_id), live)
                for entry in entries:
                    item = model.of(tenant, agent_id, entry)
                    tx.put(f"usage {entry.id}", item, model.pk.does_not_exist())
                for (purpose, model_id), (calls, tokens_in, tokens_out) in sums.items():
                    tx.update(
                        f"total {purpose} {model_id}",
                        total.at(tenant, agent_id, purpose, model_id),
                        [
                            total.purpose.set(purpose),
                            total.model_id.set(model_id),
                            total.calls.add(calls),
                            total.input_tokens.add(tokens_in),
                            total.output_tokens.add(tokens_out),
                        ],
                        None,
                    )
        except ConditionsFailed as exc:
            raise PreconditionFailed("no such agent, or the usage is recorded") from exc

    def list_usage(
        self, tenant: str, agent_id: str, turn_id: str | None, limit: int, before: str | None
    ) -> list[Usage]:
        if limit <= 0:
            return []
        model = self._items.usage
        bound: Condition = (
            model.sk < keys.usage_sk(before) if before else model.sk.startswith(keys.USAGE)
        )
        with storage_errors():
            results = model.query(
                keys.usage_pk(tenant, agent_id),
                bound,
                filter_condition=None if turn_id is None else model.turn_id == turn_id,
                consistent_read=True,
                scan_index_forward=False,
                page_size=limit if turn_id is None else max(limit, 100),
            )
            # Totals sort before entries ("T" < "U"): reading stops at the first one.
            entries = takewhile(lambda item: item.sk.startswith(keys.USAGE), results)
            return [item.to_usage() for item in islice(entries, limit)]

    def usage_totals(self, tenant: str, agent_id: str) -> list[UsageTotal]:
        model = self._items.usage_total
        with storage_errors():
            found = [
                item.to_total()
                for item in model.query(
                    keys.usage_pk(tenant, agent_id),
                    model.sk.startswith(keys.USAGE_TOTAL),
                    consistent_read=True,
                )
            ]
        return sorted(found, key=lambda total: (total.purpose, total.model_id))
