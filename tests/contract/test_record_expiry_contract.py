"""The Store port's contract for record expiry, judged against a controlled clock: every query
carries the instant it is judged at (RecordQuery.at), so SqliteStore and DynamoStore (under moto)
must give the same answers at the same instant, whatever the machine's clock says."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest

from agent_memory.adapters.dynamodb import DynamoStore
from agent_memory.adapters.dynamodb import keys as dynamo_keys
from agent_memory.domain.audit import AuditService
from agent_memory.domain.files.models import TenantLimits
from agent_memory.domain.kernel.events import Event, EventPublisher
from agent_memory.domain.kernel.models import Session
from agent_memory.domain.records.models import (
    Record,
    RecordOperation,
    RecordQuery,
    RecordStatus,
)
from agent_memory.domain.records.ports import ExpiringRecords
from agent_memory.domain.records.sweeper import SWEEPER, ExpirySweeper
from agent_memory.domain.search.service import SearchService
from agent_memory.domain.store import Store

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]
AGENT = "teams/web"
# The controlled clock: far from the machine's, so nothing here depends on when it runs.
T0 = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)
ACTIVE = frozenset({RecordStatus.ACTIVE})
EXPIRED = frozenset({RecordStatus.EXPIRED})
BOTH = frozenset({RecordStatus.ACTIVE, RecordStatus.EXPIRED})


def ids(records: list[Record]) -> list[str]:
    return [record.id for record in records]


@pytest.fixture
def stored(store: Store, build: Build, agent_with_session: MakeSession) -> dict[str, Record]:
    """rec_1 never expires, rec_2 expires at T0, rec_3 an hour later, rec_4 is deleted with an
    expiry already past (deleted stays deleted)."""
    agent_with_session()
    records = {
        "rec_1": build.record("rec_1"),
        "rec_2": build.record("rec_2", expires_at=T0),
        "rec_3": build.record("rec_3", expires_at=T0 + timedelta(hours=1)),
        "rec_4": build.record("rec_4", expires_at=T0 - timedelta(hours=1)),
    }
    store.write_records("acme", AGENT, [build.create(r) for r in records.values()])
    store.write_records("acme", AGENT, [build.change(records["rec_4"], RecordOperation.DELETE)])
    return {r.id: r for r in store.get_records("acme", AGENT, records)}


@pytest.mark.parametrize(
    ("instant", "statuses", "expected"),
    [
        (T0 - timedelta(microseconds=1), ACTIVE, ["rec_3", "rec_2", "rec_1"]),
        (T0 - timedelta(microseconds=1), EXPIRED, []),
        (T0, ACTIVE, ["rec_3", "rec_1"]),  # expiresAt itself is expired
        (T0, EXPIRED, ["rec_2"]),
        (T0 + timedelta(hours=2), ACTIVE, ["rec_1"]),
        (T0 + timedelta(hours=2), EXPIRED, ["rec_3", "rec_2"]),
        (T0 + timedelta(hours=2), BOTH, ["rec_3", "rec_2", "rec_1"]),
        (T0 + timedelta(hours=2), frozenset(RecordStatus), ["rec_4", "rec_3", "rec_2", "rec_1"]),
        (T0 + timedelta(hours=2), frozenset({RecordStatus.DELETED}), ["rec_4"]),
    ],
)
def test_find_records_judges_expiry_at_the_querys_instant(
    store: Store,
    stored: dict[str, Record],
    instant: datetime,
    statuses: frozenset[RecordStatus],
    expected: list[str],
) -> None:
    # Given records stored ACTIVE with expiries around T0, no sweep having run
    query = RecordQuery(statuses=statuses, at=instant)
    # When a listing is judged at `instant`
    found = store.find_records("acme", AGENT, query, 100, None)
    # Then what has expired by then is EXPIRED, not ACTIVE, and reads back so
    assert ids(found) == expected
    assert found == [
        r.seen_at(instant) for _, r in sorted(stored.items(), reverse=True) if query.matches(r)
    ]
    for record in found:
        expired = record.expires_at is not None and record.expires_at <= instant
        if record.id != "rec_4":
            assert record.status is (RecordStatus.EXPIRED if expired else RecordStatus.ACTIVE)


def test_expiry_pages_and_filters_like_any_other_rule(
    store: Store, stored: dict[str, Record]
) -> None:
    later = T0 + timedelta(minutes=30)
    query = RecordQuery(statuses=ACTIVE, at=later, kinds=frozenset({"fact"}))
    assert ids(store.find_records("acme", AGENT, query, 1, None)) == ["rec_3"]
    assert ids(store.find_records("acme", AGENT, query, 1, "rec_3")) == ["rec_1"]
    by_ids = RecordQuery(statuses=ACTIVE, at=later, ids=frozenset({"rec_1", "rec_2"}))
    assert ids(store.find_records("acme", AGENT, by_ids, 10, None)) == ["rec_1"]


def test_heads_read_by_id_keep_what_was_stored(store: Store, stored: dict[str, Record]) -> None:
    # get_records is the stored head: the caller judges it at its own instant (seen_at)
    head = store.get_records("acme", AGENT, ["rec_2"])[0]
    assert (head.status, head.expires_at) == (RecordStatus.ACTIVE, T0)
    assert head.seen_at(T0).status is RecordStatus.EXPIRED
    assert head.seen_at(T0 - timedelta(seconds=1)).status is RecordStatus.ACTIVE


def test_an_expiry_moved_or_cleared_is_judged_anew(
    store: Store, build: Build, stored: dict[str, Record]
) -> None:
    late = T0 + timedelta(hours=2)
    cleared = build.change(stored["rec_2"], RecordOperation.SET_EXPIRY, expires_at=None)
    moved = build.change(stored["rec_3"], RecordOperation.SET_EXPIRY, expires_at=late)
    store.write_records("acme", AGENT, [cleared, moved])

    at_t1 = RecordQuery(statuses=ACTIVE, at=T0 + timedelta(hours=1))
    assert ids(store.find_records("acme", AGENT, at_t1, 10, None)) == ["rec_3", "rec_2", "rec_1"]
    at_t2 = RecordQuery(statuses=EXPIRED, at=late)
    assert ids(store.find_records("acme", AGENT, at_t2, 10, None)) == ["rec_3"]
    assert [v.operation for v in store.record_versions("acme", AGENT, "rec_3", 10, None)] == [
        RecordOperation.SET_EXPIRY,
        RecordOperation.CREATE,
    ]


def test_dynamodb_keeps_the_purge_instant_as_the_items_ttl(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    """The cloud's purge: the head and every version carry DynamoDB's TTL attribute at
    expiresAt plus the tenant's retention (P30D unless its admin set another)."""
    if not isinstance(store, DynamoStore):
        pytest.skip("SqliteStore's sweeper purges (tests/integration/test_expiry_sweeper.py)")
    agent_with_session()
    store.save_tenant_limits("acme", TenantLimits(expired_retention="P2D"))
    plain = build.record("rec_1")
    store.write_records("acme", AGENT, [build.create(plain)])
    expiring = build.change(plain, RecordOperation.SET_EXPIRY, expires_at=T0)
    store.write_records("acme", AGENT, [expiring])

    items = store._items
    head = items.record.get(
        dynamo_keys.records_pk("acme", AGENT), dynamo_keys.record_sk("rec_1"), consistent_read=True
    )
    pk = dynamo_keys.record_versions_pk("acme", AGENT, "rec_1")
    versions = [
        items.record_version.get(pk, dynamo_keys.record_version_sk(n), consistent_read=True)
        for n in (1, 2)
    ]
    assert head.ttl == T0 + timedelta(days=2)
    assert [v.ttl for v in versions] == [T0 + timedelta(days=2)] * 2
    # Cleared: no purge, on the head and on the versions before it
    cleared = build.change(expiring.record, RecordOperation.SET_EXPIRY, expires_at=None)
    store.write_records("acme", AGENT, [cleared])
    head.refresh(consistent_read=True)
    assert head.ttl is None
    versions[0].refresh(consistent_read=True)
    assert versions[0].ttl is None


# -- the expiry sweep: the embedded worker's sweeper, the cloud's scheduled step ------------------


class Published(EventPublisher):
    def __init__(self) -> None:
        self.events: list[Event] = []

    def publish(self, events: Sequence[Event]) -> None:
        self.events.extend(events)


def sweeper_of(store: Store, published: Published) -> ExpirySweeper:
    """The sweeper as either shape builds it (no inline search index: none is under test)."""
    assert isinstance(store, ExpiringRecords)
    audit = AuditService(store, 0)  # kept for ever: the clock here is years ahead
    return ExpirySweeper(store, store, SearchService(None, None, False), published, audit)


def history(store: Store, record_id: str) -> list[tuple[RecordOperation, RecordStatus, str]]:
    return [
        (v.operation, v.record.status, v.changed_by.actor)
        for v in store.record_versions("acme", AGENT, record_id, 10, None)
    ]


def test_records_expiring_are_the_active_heads_due_soonest_first(
    store: Store, stored: dict[str, Record]
) -> None:
    # Given rec_2 expiring at T0, rec_3 an hour later, rec_4 deleted with a past expiry
    assert isinstance(store, ExpiringRecords)
    # When each store is asked at instants around them
    # Then only ACTIVE heads whose expiry has come are due, soonest first, across tenants
    assert store.records_expiring(T0 - timedelta(microseconds=1), 10) == []
    assert ids(store.records_expiring(T0, 10)) == ["rec_2"]
    later = T0 + timedelta(hours=2)
    assert ids(store.records_expiring(later, 10)) == ["rec_2", "rec_3"]
    assert ids(store.records_expiring(later, 1)) == ["rec_2"]
    assert store.records_expiring(later, 0) == []


def test_an_expiry_moved_or_cleared_leaves_the_due_records(
    store: Store, build: Build, stored: dict[str, Record]
) -> None:
    # Given rec_2's expiry cleared and rec_3's moved a day on
    cleared = build.change(stored["rec_2"], RecordOperation.SET_EXPIRY, expires_at=None)
    moved = build.change(
        stored["rec_3"], RecordOperation.SET_EXPIRY, expires_at=T0 + timedelta(days=1)
    )
    store.write_records("acme", AGENT, [cleared, moved])
    # Then neither is due two hours after T0, and rec_3 is due again a day on
    assert store.records_expiring(T0 + timedelta(hours=2), 10) == []
    assert ids(store.records_expiring(T0 + timedelta(days=1), 10)) == ["rec_3"]


def test_a_sweep_gives_both_stores_the_same_versions_events_and_audit(
    store: Store, stored: dict[str, Record]
) -> None:
    # Given records expiring at T0 and an hour later, swept by the same sweeper on each store
    published = Published()
    sweeper = sweeper_of(store, published)

    # When it runs half an hour after T0
    half = T0 + timedelta(minutes=30)
    done, more = sweeper.expire_batch(half, 10)

    # Then rec_2 alone has an `expire` version, by the sweeper, at the sweep's instant
    assert (done, more) == (1, False)
    assert history(store, "rec_2") == [
        (RecordOperation.EXPIRE, RecordStatus.EXPIRED, SWEEPER),
        (RecordOperation.CREATE, RecordStatus.ACTIVE, "agent"),
    ]
    head = store.get_records("acme", AGENT, ["rec_2"])[0]
    assert (head.status, head.version, head.updated_at) == (RecordStatus.EXPIRED, 2, half)
    assert [v.operation for v in store.record_versions("acme", AGENT, "rec_3", 10, None)] == [
        RecordOperation.CREATE
    ]
    # announced as agent.memory_updated, once
    [event] = published.events
    assert (event.type, event.tenant, event.agent_id, event.at) == (
        "agent.memory_updated",
        "acme",
        AGENT,
        half,
    )
    assert [(c.id, c.operation, c.version) for c in event.changes] == [("rec_2", "expire", 2)]
    # and audited by the sweeper
    trail = store.list_audit("acme", None, 10, None, SWEEPER, half)
    assert [(e.method, e.agent_id, e.target) for e in trail] == [("EXPIRE", AGENT, "records/rec_2")]

    # When the sweep runs again at the same instant (a retry), nothing is written twice
    assert sweeper.expire_batch(half, 10) == (0, False)
    assert len(history(store, "rec_2")) == 2
    assert len(published.events) == 1
    assert len(store.list_audit("acme", None, 10, None, SWEEPER, half)) == 1

    # And an hour on, rec_3 follows, in as many batches as it takes
    assert sweeper.sweep(T0 + timedelta(hours=2), batch=1).expired == 1
    assert [c.id for e in published.events for c in e.changes] == ["rec_2", "rec_3"]


def test_a_full_batch_says_more_may_be_due(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given three records that expired at T0
    agent_with_session()
    records = [build.record(f"rec_{n}", expires_at=T0) for n in (1, 2, 3)]
    store.write_records("acme", AGENT, [build.create(r) for r in records])
    sweeper = sweeper_of(store, Published())
    # When they are swept two at a time, then the first batch says there may be more
    assert sweeper.expire_batch(T0, 2) == (2, True)
    assert sweeper.expire_batch(T0, 2) == (1, False)
    assert store.records_expiring(T0, 10) == []
