"""The Store port's contract for as-of reads of records (records_at): each record as its newest
version made at or before an instant left it, the same on SqliteStore and DynamoStore."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest

from agent_memory.domain.kernel.models import Session
from agent_memory.domain.records.models import Record, RecordOperation, RecordQuery, RecordStatus
from agent_memory.domain.store import Store

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]
AGENT = "teams/web"
T0 = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def states(store: Store, ids: list[str], when: datetime) -> list[tuple[str, int, str]]:
    return [(r.id, r.version, r.status.value) for r in store.records_at("acme", AGENT, ids, when)]


@pytest.fixture
def history(store: Store, build: Build, agent_with_session: MakeSession) -> dict[str, Record]:
    """rec_1 made at T0, pinned at T0+10 s and deleted at T0+20 s; rec_2 made at T0+15 s."""
    agent_with_session()
    first = build.record("rec_1", created_at=T0, updated_at=T0)
    store.write_records("acme", AGENT, [build.create(first)])
    pinned = build.change(first, RecordOperation.SET_EXPIRY, pinned=True, updated_at=at(10))
    store.write_records("acme", AGENT, [pinned])
    deleted = build.change(pinned.record, RecordOperation.DELETE, updated_at=at(20))
    store.write_records("acme", AGENT, [deleted])
    second = build.record("rec_2", created_at=at(15), updated_at=at(15))
    store.write_records("acme", AGENT, [build.create(second)])
    return {"rec_1": deleted.record, "rec_2": second}


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (-1, []),
        (0, [("rec_1", 1, "ACTIVE")]),  # the instant of a version counts
        (9.999, [("rec_1", 1, "ACTIVE")]),
        (10, [("rec_1", 2, "ACTIVE")]),
        (15, [("rec_1", 2, "ACTIVE"), ("rec_2", 1, "ACTIVE")]),
        (20, [("rec_1", 3, "DELETED"), ("rec_2", 1, "ACTIVE")]),
        (3600, [("rec_1", 3, "DELETED"), ("rec_2", 1, "ACTIVE")]),
    ],
)
def test_records_at_reads_the_version_current_at_the_instant(
    store: Store, history: dict[str, Record], seconds: float, expected: list[tuple[str, int, str]]
) -> None:
    assert states(store, ["rec_2", "rec_1"], at(seconds)) == expected


def test_records_at_gives_each_version_whole(store: Store, history: dict[str, Record]) -> None:
    (then,) = store.records_at("acme", AGENT, ["rec_1"], at(12))
    assert then.pinned and then.status is RecordStatus.ACTIVE
    assert then == store.record_versions("acme", AGENT, "rec_1", 10, None)[1].record


def test_records_at_leaves_out_what_no_version_names(
    store: Store, history: dict[str, Record]
) -> None:
    assert states(store, ["rec_nope", "rec#1", ""], at(60)) == []
    assert store.records_at("acme", AGENT, [], at(60)) == []
    assert store.records_at("other", AGENT, ["rec_1"], at(60)) == []
    assert store.records_at("acme", "teams/other", ["rec_1"], at(60)) == []


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (-1, []),
        (12, [("rec_1", 2, "ACTIVE")]),
        (16, [("rec_2", 1, "ACTIVE"), ("rec_1", 2, "ACTIVE")]),
        (25, [("rec_2", 1, "ACTIVE"), ("rec_1", 3, "DELETED")]),
    ],
)
def test_find_records_at_lists_each_record_as_it_stood_newest_first(
    store: Store, history: dict[str, Record], seconds: float, expected: list[tuple[str, int, str]]
) -> None:
    # Statuses and pins are not applied by the store: they are judged on the state then
    query = RecordQuery(statuses=frozenset({RecordStatus.ACTIVE}), pinned=False)
    found = store.find_records_at("acme", AGENT, query, at(seconds), 10, None)
    assert [(r.id, r.version, r.status.value) for r in found] == expected


def test_find_records_at_filters_pages_and_stops_where_the_store_does(
    store: Store, build: Build, history: dict[str, Record]
) -> None:
    event = build.record("rec_3", kind="event", created_at=at(30), updated_at=at(30))
    store.write_records("acme", AGENT, [build.create(event)])
    later = at(40)

    def found(limit: int, before: str | None, **filters: object) -> list[str]:
        query = RecordQuery(**filters)  # type: ignore[arg-type]
        return [r.id for r in store.find_records_at("acme", AGENT, query, later, limit, before)]

    assert found(10, None) == ["rec_3", "rec_2", "rec_1"]
    assert found(10, None, kinds=frozenset({"event"})) == ["rec_3"]
    assert found(10, None, ids=frozenset({"rec_1", "rec_3"})) == ["rec_3", "rec_1"]
    assert found(2, None) == ["rec_3", "rec_2"]
    assert found(2, "rec_2") == ["rec_1"]
    assert found(10, None, include_agent=False, session_id="ses_9") == []
    assert store.find_records_at("other", AGENT, RecordQuery(), later, 10, None) == []
