"""The Store port's contract for record expiry, judged against a controlled clock: every query
carries the instant it is judged at (RecordQuery.at), so SqliteStore and DynamoStore (under moto)
must give the same answers at the same instant, whatever the machine's clock says."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest

from agent_memory.adapters.dynamodb import DynamoStore
from agent_memory.adapters.dynamodb import keys as dynamo_keys
from agent_memory.domain.files.models import TenantLimits
from agent_memory.domain.kernel.models import Session
from agent_memory.domain.records.models import (
    Record,
    RecordOperation,
    RecordQuery,
    RecordStatus,
)
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
