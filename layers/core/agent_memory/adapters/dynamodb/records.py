"""Record memory, executions and staged effects on DynamoDB (a mixin of DynamoStore).

Semantics mirror SqliteRecords exactly; the layout is in keys.py. A record write is one
TransactWriteItems: a live-agent check (so nothing lands behind a delete's walk), each head put
under its expected-version condition and each version put under attribute_not_exists.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from functools import reduce
from itertools import islice
from typing import TypeVar

from pynamodb.connection import Connection
from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition

from ...domain.files.models import TenantLimits
from ...domain.kernel.errors import PreconditionFailed
from ...domain.kernel.models import TurnStatus
from ...domain.records.expiry import purge_at
from ...domain.records.models import (
    Execution,
    Record,
    RecordOperation,
    RecordQuery,
    RecordStatus,
    RecordVersion,
    RecordWrite,
    from_doc,
)
from ...domain.turns.effects import Effect
from . import keys
from .agent_items import AgentItem
from .item_base import Item
from .items import Items
from .transactions import (
    ConditionsFailed,
    Transaction,
    is_condition_failure,
    storage_errors,
    unavailable,
)

# Items read per Query page while looking for matching records.
_MIN_PAGE, _MAX_PAGE = 25, 1000
# Versions read a page while looking back for the one current at an instant.
_VERSIONS_PAGE = 10
# The most values a FilterExpression's IN takes.
_MAX_IN_VALUES = 100

AGENT = "agent"
TURN = "turn"

M = TypeVar("M", bound=Item)


def live_agent(agent: type[AgentItem]) -> Condition:
    """The head exists and no delete has started on it."""
    live: Condition = agent.pk.exists() & agent.deleting.does_not_exist()
    return live


class DynamoRecords:
    _items: Items
    connection: Connection
    tenant_limits: Callable[[str], TenantLimits | None]

    # -- turn log ------------------------------------------------------------------------------

    def add_execution(
        self, tenant: str, agent_id: str, session_id: str, execution: Execution
    ) -> None:
        model = self._items.execution
        item = model.of(tenant, agent_id, session_id, execution)
        try:
            with Transaction(self.connection) as tx:
                self._check_turn(tx, tenant, agent_id, session_id, execution.turn_id)
                tx.put("execution", item, model.pk.does_not_exist())
        except ConditionsFailed as exc:
            if exc.failed.keys() & {AGENT, TURN}:
                raise PreconditionFailed(f"turn {execution.turn_id!r} does not exist") from exc
            raise PreconditionFailed(f"execution {execution.id!r} already exists") from exc

    def list_executions(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[Execution]:
        model = self._items.execution
        items = _all(
            model, keys.session_pk(tenant, agent_id, session_id), keys.execution_prefix(turn_id)
        )
        return [item.to_execution() for item in items]

    def stage_effect(self, tenant: str, agent_id: str, session_id: str, effect: Effect) -> None:
        model, marker = self._items.effect, self._items.effect_id
        try:
            with Transaction(self.connection) as tx:
                self._check_agent(tx, tenant, agent_id)
                turn = self._items.turn
                open_turn = turn.pk.exists() & (turn.status == TurnStatus.OPEN.value)
                key = keys.session_pk(tenant, agent_id, session_id), keys.turn_sk(effect.turn_id)
                tx.update(TURN, turn.key(*key), [turn.staged.add(1)], open_turn)
                item = model.of(tenant, agent_id, session_id, effect)
                tx.put("sequence", item, model.pk.does_not_exist())
                held = marker.of(tenant, agent_id, session_id, effect)
                tx.put("effect_id", held, marker.pk.does_not_exist())
        except ConditionsFailed as exc:
            if exc.failed.keys() & {AGENT, TURN}:
                raise PreconditionFailed(f"turn {effect.turn_id!r} is gone or ended") from exc
            raise PreconditionFailed("the turn already staged this effect or sequence") from exc

    def staged_effects(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[Effect]:
        model = self._items.effect
        items = _all(
            model, keys.session_pk(tenant, agent_id, session_id), keys.effect_prefix(turn_id)
        )
        return [item.to_effect() for item in items]

    # -- records -------------------------------------------------------------------------------

    def get_records(self, tenant: str, agent_id: str, ids: Iterable[str]) -> list[Record]:
        # An id with `#` cannot be a key part (keys.py), so it names no record (as in SQLite).
        wanted = [record_id for record_id in dict.fromkeys(ids) if "#" not in record_id]
        if not wanted:
            return []
        model = self._items.record
        pk = keys.records_pk(tenant, agent_id)
        with storage_errors():
            found = [
                item.to_record()
                for item in model.batch_get(
                    [(pk, keys.record_sk(record_id)) for record_id in wanted],
                    consistent_read=True,
                )
            ]
        # SqliteStore reads them in key order; the port promises no order, so keep the same one.
        return sorted(found, key=lambda record: record.id)

    def find_records(
        self, tenant: str, agent_id: str, query: RecordQuery, limit: int, before: str | None
    ) -> list[Record]:
        if limit <= 0:
            return []
        if query.ids:
            # A known handful of ids: read those heads instead of walking the whole partition.
            candidates = [
                record
                for record in self.get_records(tenant, agent_id, query.ids)
                if before is None or record.id < before
            ]
            candidates.sort(key=lambda record: record.id, reverse=True)
            return [r.seen_at(query.at) for r in candidates if query.matches(r)][:limit]
        model = self._items.record
        # The bound needs no key check: it only limits a Query inside this agent's partition.
        bound = (
            model.sk.startswith(keys.RECORD) if before is None else model.sk < keys.RECORD + before
        )
        with storage_errors():
            results = model.query(
                keys.records_pk(tenant, agent_id),
                bound,
                filter_condition=_prefilter(self._items, query),
                consistent_read=True,
                scan_index_forward=False,
                page_size=min(max(limit, _MIN_PAGE), _MAX_PAGE),
            )
            # RecordQuery.matches is the definition of a match; the filter only saves transfer.
            matching = (
                record.seen_at(query.at)
                for record in (i.to_record() for i in results)
                if query.matches(record)
            )
            return list(islice(matching, limit))

    def record_versions(
        self, tenant: str, agent_id: str, record_id: str, limit: int, before: int | None
    ) -> list[RecordVersion]:
        if limit <= 0:
            return []
        model = self._items.record_version
        bound = (
            model.sk.startswith(keys.RECORD_VERSION)
            if before is None or before >= 10**keys.RECORD_VERSION_DIGITS
            else model.sk < keys.record_version_sk(before)
        )
        with storage_errors():
            results = model.query(
                keys.record_versions_pk(tenant, agent_id, record_id),
                bound,
                consistent_read=True,
                scan_index_forward=False,
                page_size=limit,
            )
            return [item.to_version() for item in islice(results, limit)]

    def records_at(
        self, tenant: str, agent_id: str, ids: Iterable[str], at: datetime
    ) -> list[Record]:
        model = self._items.record_version
        found: list[Record] = []
        for record_id in dict.fromkeys(ids):
            if "#" in record_id:
                continue  # no key part (keys.py): names no record, as in SQLite
            with storage_errors():
                newest_first = model.query(
                    keys.record_versions_pk(tenant, agent_id, record_id),
                    model.sk.startswith(keys.RECORD_VERSION),
                    consistent_read=True,
                    scan_index_forward=False,
                    page_size=_VERSIONS_PAGE,
                )
                for item in newest_first:
                    doc = json.loads(item.doc)
                    if datetime.fromisoformat(doc["at"]) <= at:
                        found.append(from_doc(doc["record"]))
                        break
        return sorted(found, key=lambda record: record.id)

    def write_records(self, tenant: str, agent_id: str, writes: Sequence[RecordWrite]) -> None:
        if not writes:
            return
        try:
            with Transaction(self.connection) as tx:
                self._check_agent(tx, tenant, agent_id)
                self._put_writes(tx, tenant, agent_id, writes)
        except ConditionsFailed as exc:
            raise write_failure(exc) from exc
        self._restamp_versions(tenant, agent_id, writes)

    def _restamp_versions(self, tenant: str, agent_id: str, writes: Sequence[RecordWrite]) -> None:
        """An app set or cleared a record's expiresAt: its earlier versions take the head's
        purge time too, so DynamoDB's TTL removes the record whole. Outside the transaction
        (a record may have more versions than one takes); a version gone meanwhile is skipped."""
        model = self._items.record_version
        for write in writes:
            if not any(v.operation is RecordOperation.SET_EXPIRY for v in write.versions):
                continue
            record = write.record
            purge = purge_at(record, self.tenant_limits(tenant))
            pk = keys.record_versions_pk(tenant, agent_id, record.id)
            action = model.ttl.set(purge) if purge is not None else model.ttl.remove()
            for number in range(1, record.version):
                item = model.key(pk, keys.record_version_sk(number))
                try:
                    item.update(actions=[action], condition=model.pk.exists())
                except UpdateError as exc:
                    if not is_condition_failure(exc):
                        raise unavailable(exc) from exc

    # -- shared with DynamoStore.end_turn ------------------------------------------------------

    def _check_agent(self, tx: Transaction, tenant: str, agent_id: str) -> None:
        head = self._items.agent
        tx.check(AGENT, head, keys.agents_pk(tenant), keys.agent_sk(agent_id), live_agent(head))

    def _check_turn(
        self, tx: Transaction, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> None:
        """The turn exists (SqliteStore's foreign key) and its agent is live (the delete walk)."""
        self._check_agent(tx, tenant, agent_id)
        turn = self._items.turn
        pk = keys.session_pk(tenant, agent_id, session_id)
        tx.check(TURN, turn, pk, keys.turn_sk(turn_id), turn.pk.exists())

    def _put_writes(
        self, tx: Transaction, tenant: str, agent_id: str, writes: Sequence[RecordWrite]
    ) -> None:
        """Add each write's head and versions to `tx`."""
        head, version = self._items.record, self._items.record_version
        expiring = any(w.record.expires_at is not None for w in writes)
        limits = self.tenant_limits(tenant) if expiring else None
        for write in writes:
            record = write.record
            purge = purge_at(record, limits)
            current: Condition = (
                head.pk.does_not_exist()
                if write.expected_version is None
                else head.version == write.expected_version
            )
            tx.put(f"record {record.id}", head.of(tenant, agent_id, record, purge), current)
            for each in write.versions:
                label = f"version {record.id} {each.record.version}"
                kept = version.of(tenant, agent_id, record.id, each, purge)
                tx.put(label, kept, version.pk.does_not_exist())


def _all(model: type[M], pk: str, prefix: str) -> Iterator[M]:
    """Every item of one kind in a partition, in sort-key order, read a page at a time."""
    with storage_errors():
        yield from model.query(pk, model.sk.startswith(prefix), consistent_read=True)


def _prefilter(items: Items, query: RecordQuery) -> Condition | None:
    """The simple part of `query` as a FilterExpression on the heads' typed attributes."""
    model = items.record
    conditions: list[Condition] = []
    if query.statuses:
        stored = {s.value for s in query.statuses}
        if RecordStatus.EXPIRED in query.statuses:
            stored.add(RecordStatus.ACTIVE.value)  # an ACTIVE head past its expiresAt is EXPIRED
        conditions.append(model.status.is_in(*sorted(stored)))
    if 0 < len(query.kinds) <= _MAX_IN_VALUES:
        conditions.append(model.kind.is_in(*sorted(query.kinds)))
    if query.pinned is not None:
        conditions.append(model.pinned == query.pinned)
    if query.preview != "any":
        conditions.append(model.preview == (query.preview == "only"))
    return reduce(lambda a, b: a & b, conditions) if conditions else None


def write_failure(exc: ConditionsFailed) -> PreconditionFailed:
    if AGENT in exc.failed:
        return PreconditionFailed("the agent does not exist or is being deleted")
    changed = sorted(label for label in exc.failed)
    return PreconditionFailed(f"changed concurrently: {', '.join(changed)}")
