"""The Store port's contract for the turn log and record memory: every test runs against
SqliteStore and DynamoStore (under moto)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from record_filter_cases import FIND_CASES, filter_records

from agent_memory.domain.kernel.errors import PreconditionFailed
from agent_memory.domain.kernel.models import Session, TurnStatus, utcnow
from agent_memory.domain.records.models import (
    ProposedWrite,
    Record,
    RecordOperation,
    RecordQuery,
    RecordStatus,
    RecordVersion,
    RecordWrite,
)
from agent_memory.domain.sessions.ports import TurnWrites
from agent_memory.domain.store import Store

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]
AGENT = "teams/web"


def ids(records: list[Record]) -> list[str]:
    return [record.id for record in records]


def heads(store: Store, *record_ids: str, tenant: str = "acme") -> dict[str, Record]:
    return {r.id: r for r in store.get_records(tenant, AGENT, record_ids)}


def versions(store: Store, record_id: str, tenant: str = "acme") -> list[RecordVersion]:
    return store.record_versions(tenant, AGENT, record_id, 100, None)


# -- executions --------------------------------------------------------------------------------


def test_executions_read_back_whole_in_id_order_per_turn(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    store.begin_turn(build.turn(session, 1))
    store.begin_turn(build.turn(session, 2))
    made = {n: build.execution(n) for n in ("exe_03", "exe_01", "exe_10", "exe_02")}
    for execution in made.values():
        store.add_execution("acme", AGENT, session.id, execution)
    other = build.execution("exe_00", turn_id="trn_0002")
    store.add_execution("acme", AGENT, session.id, other)

    listed = store.list_executions("acme", AGENT, session.id, "trn_0001")

    assert listed == [made[n] for n in ("exe_01", "exe_02", "exe_03", "exe_10")]
    assert store.list_executions("acme", AGENT, session.id, "trn_0002") == [other]
    assert store.list_executions("acme", AGENT, session.id, "trn_0003") == []
    assert store.list_executions("acme", AGENT, "ses_2", "trn_0001") == []
    assert store.list_executions("other", AGENT, session.id, "trn_0001") == []
    # The turn log sits beside the turns without changing how they read
    assert store.get_turn("acme", AGENT, session.id, "trn_0001") == build.turn(session, 1)
    assert [s.id for s in store.list_sessions("acme", AGENT, 10, None)] == [session.id]


# -- staged effects ----------------------------------------------------------------------------


def test_staged_effects_read_back_in_sequence_order_per_turn(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    store.begin_turn(build.turn(session, 1))
    store.begin_turn(build.turn(session, 2))
    staged = [build.effect(f"eff_{n}", n) for n in (3, 1, 10, 2)]
    for effect in staged:
        store.stage_effect("acme", AGENT, session.id, effect)
    # The same effect id and sequence on another turn are that turn's own
    elsewhere = build.effect("eff_1", 1, turn_id="trn_0002")
    store.stage_effect("acme", AGENT, session.id, elsewhere)

    listed = store.staged_effects("acme", AGENT, session.id, "trn_0001")

    assert listed == sorted(staged, key=lambda effect: effect.sequence)
    assert store.staged_effects("acme", AGENT, session.id, "trn_0002") == [elsewhere]
    assert store.staged_effects("acme", AGENT, session.id, "trn_0003") == []
    assert store.staged_effects("other", AGENT, session.id, "trn_0001") == []
    assert store.get_turn("acme", AGENT, session.id, "trn_0001") == build.turn(session, 1)


@pytest.mark.parametrize("duplicate", ["effect_id", "sequence", "both"])
def test_a_duplicate_effect_is_refused_and_changes_nothing(
    store: Store, build: Build, agent_with_session: MakeSession, duplicate: str
) -> None:
    # Given a turn that staged effect eff_a as its first write
    session = agent_with_session()
    store.begin_turn(build.turn(session, 1))
    first = build.effect("eff_a", 1)
    store.stage_effect("acme", AGENT, session.id, first)
    # When a second effect repeats its id, its sequence, or both
    again = build.effect(
        "eff_a" if duplicate != "sequence" else "eff_b",
        1 if duplicate != "effect_id" else 2,
        record_id="rec_other",
    )

    with pytest.raises(PreconditionFailed):
        store.stage_effect("acme", AGENT, session.id, again)

    # Then only the first is staged, and nothing of the refused one was kept: both the next
    # sequence and a new effect id are still free
    assert store.staged_effects("acme", AGENT, session.id, "trn_0001") == [first]
    second = build.effect("eff_b", 2)
    store.stage_effect("acme", AGENT, session.id, second)
    assert store.staged_effects("acme", AGENT, session.id, "trn_0001") == [first, second]


def test_staging_on_a_missing_turn_is_refused(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()

    with pytest.raises(PreconditionFailed):
        store.stage_effect("acme", AGENT, session.id, build.effect("eff_a", 1, "trn_ghost"))

    assert store.staged_effects("acme", AGENT, session.id, "trn_ghost") == []


# -- writing records ---------------------------------------------------------------------------


def test_created_records_read_back_with_every_field(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    agent_record = build.record("rec_01", labels={"topic": "billing", "lang": "en"}, pinned=True)
    session_record = build.record("rec_02", session_id="ses_1", content=None, preview=True)

    store.write_records("acme", AGENT, [build.create(agent_record), build.create(session_record)])

    assert heads(store, "rec_01", "rec_02", "rec_missing") == {
        "rec_01": agent_record,
        "rec_02": session_record,
    }
    assert versions(store, "rec_01") == [build.version(agent_record)]
    assert versions(store, "rec_02") == [build.version(session_record)]
    assert store.get_records("acme", AGENT, []) == []
    assert store.get_records("acme", AGENT, ["rec_01", "rec_01"]) == [agent_record]


def test_an_update_at_the_expected_version_moves_the_head_and_adds_a_version(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    record = build.record("rec_01")
    store.write_records("acme", AGENT, [build.create(record)])
    deleted = build.change(record, RecordOperation.DELETE, pinned=False)

    store.write_records("acme", AGENT, [deleted])

    assert heads(store, "rec_01") == {"rec_01": deleted.record}
    assert versions(store, "rec_01") == [deleted.versions[0], build.version(record)]


def test_a_pending_proposal_reads_back_whole_and_is_found_only_by_its_status(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given an active record and a review's pending proposal to replace it
    agent_with_session()
    active = build.record("rec_01")
    proposal = ProposedWrite(action="replace", target="rec_01", target_version=1)
    pending = build.record("rec_02", status=RecordStatus.PENDING, proposal=proposal)
    store.write_records("acme", AGENT, [build.create(active), build.create(pending)])
    # Then it reads back with what it proposes, and only a listing that asks for PENDING has it
    assert heads(store, "rec_02") == {"rec_02": pending}
    assert ids(store.find_records("acme", AGENT, RecordQuery(), 10, None)) == ["rec_01"]
    asked = RecordQuery(statuses=frozenset({RecordStatus.PENDING}))
    assert ids(store.find_records("acme", AGENT, asked, 10, None)) == ["rec_02"]
    # When it is approved and its target superseded, in one write
    approved = build.change(pending, RecordOperation.APPROVE, status=RecordStatus.ACTIVE)
    superseded = build.change(active, RecordOperation.SUPERSEDE, replaced_by="rec_02")
    store.write_records("acme", AGENT, [approved, superseded])
    # Then both moved, each with its new version
    assert ids(store.find_records("acme", AGENT, RecordQuery(), 10, None)) == ["rec_02"]
    assert [v.operation for v in versions(store, "rec_02")] == [
        RecordOperation.APPROVE,
        RecordOperation.CREATE,
    ]
    assert heads(store, "rec_01")["rec_01"].status is RecordStatus.SUPERSEDED


@pytest.mark.parametrize("stale", ["create_existing", "old_version", "future_version", "missing"])
def test_a_write_whose_expected_version_fails_writes_nothing_at_all(
    store: Store, build: Build, agent_with_session: MakeSession, stale: str
) -> None:
    # Given two stored records, one at version 2
    agent_with_session()
    first, second = build.record("rec_01"), build.record("rec_02")
    store.write_records("acme", AGENT, [build.create(first), build.create(second)])
    moved = build.change(second, RecordOperation.SUPERSEDE, replaced_by="rec_03")
    store.write_records("acme", AGENT, [moved])
    before = heads(store, "rec_01", "rec_02", "rec_03", "rec_04")
    before_versions = {rid: versions(store, rid) for rid in ("rec_01", "rec_02", "rec_03")}
    # When one call holds good writes and one whose expectation no longer holds
    bad = {
        "create_existing": build.create(build.record("rec_02", summary="again")),
        "old_version": build.change(second, RecordOperation.DELETE),  # expects 1, it is at 2
        "future_version": build.change(moved.record, RecordOperation.DELETE, expected_version=5),
        "missing": build.change(build.record("rec_04"), RecordOperation.DELETE),
    }[stale]
    good = [build.create(build.record("rec_03")), build.change(first, RecordOperation.DELETE)]

    with pytest.raises(PreconditionFailed):
        store.write_records("acme", AGENT, [good[0], bad, good[1]])

    # Then no head and no version changed, the good writes' included
    assert heads(store, "rec_01", "rec_02", "rec_03", "rec_04") == before
    assert {rid: versions(store, rid) for rid in before_versions} == before_versions
    assert before_versions["rec_03"] == []


def test_several_versions_of_one_record_are_written_together(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # What a commit does for a record it creates and supersedes in the same turn
    agent_with_session()
    created = build.record("rec_01")
    superseded = build.change(created, RecordOperation.SUPERSEDE, replaced_by="rec_02").record
    write = RecordWrite(
        record=superseded,
        expected_version=None,
        versions=[build.version(created), build.version(superseded, RecordOperation.SUPERSEDE)],
    )

    store.write_records("acme", AGENT, [write])

    assert heads(store, "rec_01") == {"rec_01": superseded}
    assert [v.record.version for v in versions(store, "rec_01")] == [2, 1]


def test_record_versions_list_newest_first_and_page_with_before(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    record = build.record("rec_01")
    store.write_records("acme", AGENT, [build.create(record)])
    for _ in range(11):  # versions 1..12, so paging crosses 9 -> 10 and 10 -> 11
        write = build.change(record, RecordOperation.SUPERSEDE)
        store.write_records("acme", AGENT, [write])
        record = write.record

    def numbers(limit: int, before: int | None) -> list[int]:
        listed = store.record_versions("acme", AGENT, "rec_01", limit, before)
        return [v.record.version for v in listed]

    assert numbers(100, None) == list(range(12, 0, -1))
    assert numbers(3, None) == [12, 11, 10]
    assert numbers(3, 10) == [9, 8, 7]
    assert numbers(5, 3) == [2, 1]
    assert numbers(5, 1) == []
    assert numbers(0, None) == []
    assert store.record_versions("acme", AGENT, "rec_other", 5, None) == []
    assert store.record_versions("acme", "other", "rec_01", 5, None) == []


# -- finding records ---------------------------------------------------------------------------


@pytest.fixture
def stored(store: Store, build: Build, agent_with_session: MakeSession) -> dict[str, Record]:
    """The filter table's spread of records (record_filter_cases.py)."""
    agent_with_session()
    records = filter_records(build)
    store.write_records("acme", AGENT, [build.create(record) for record in records])
    return {record.id: record for record in records}


@pytest.mark.parametrize(
    ("query", "expected"), [c[1:] for c in FIND_CASES], ids=[c[0] for c in FIND_CASES]
)
def test_find_records_applies_every_filter_newest_first(
    store: Store, stored: dict[str, Record], query: RecordQuery, expected: list[str]
) -> None:
    found = store.find_records("acme", AGENT, query, 100, None)

    assert ids(found) == expected
    # Exactly what RecordQuery.matches defines, whole records included
    assert found == [r for _, r in sorted(stored.items(), reverse=True) if query.matches(r)]


@pytest.mark.parametrize(
    "query",
    [
        RecordQuery(preview="any"),
        RecordQuery(
            ids=frozenset({"rec_01", "rec_06", "rec_07", "rec_09", "rec_11"}), preview="any"
        ),
    ],
    ids=["all_records", "by_ids"],
)
def test_find_records_pages_with_before_and_limit(
    store: Store, stored: dict[str, Record], query: RecordQuery
) -> None:
    # The matches are rec_11, rec_09, rec_07, rec_06, rec_01, with non-matching ids between
    def found(limit: int, before: str | None) -> list[str]:
        return ids(store.find_records("acme", AGENT, query, limit, before))

    assert found(2, None) == ["rec_11", "rec_09"]
    assert found(2, "rec_09") == ["rec_07", "rec_06"]
    assert found(2, "rec_06") == ["rec_01"]
    assert found(2, "rec_01") == []
    assert found(100, "rec_08") == ["rec_07", "rec_06", "rec_01"]
    assert found(100, "rec_10") == ["rec_09", "rec_07", "rec_06", "rec_01"]  # between matches
    assert found(100, "zzz") == ["rec_11", "rec_09", "rec_07", "rec_06", "rec_01"]
    assert found(100, "") == []
    assert found(0, None) == []


def test_find_records_keeps_reading_past_records_that_do_not_match(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given many records of which only every tenth is pinned
    agent_with_session()
    records = [build.record(f"rec_{n:03d}", pinned=n % 10 == 0) for n in range(1, 121)]
    for start in range(0, len(records), 20):
        store.write_records("acme", AGENT, [build.create(r) for r in records[start : start + 20]])
    pinned = RecordQuery(pinned=True)

    assert ids(store.find_records("acme", AGENT, pinned, 3, None)) == [
        "rec_120",
        "rec_110",
        "rec_100",
    ]
    assert ids(store.find_records("acme", AGENT, pinned, 3, "rec_100")) == [
        "rec_090",
        "rec_080",
        "rec_070",
    ]
    assert ids(store.find_records("acme", AGENT, pinned, 50, "rec_035")) == [
        "rec_030",
        "rec_020",
        "rec_010",
    ]
    assert len(store.find_records("acme", AGENT, RecordQuery(), 500, None)) == 120
    assert ids(store.find_records("acme", AGENT, RecordQuery(), 2, None)) == ["rec_120", "rec_119"]


def test_label_names_are_matched_literally_whatever_they_hold(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session(AGENT, tenant="tenant-a")
    agent_with_session(AGENT, tenant="tenant-b")
    odd = build.record("rec_01", tenant="tenant-b", labels={"customer.id": "c-1", "it's": "yes"})
    store.write_records("tenant-b", AGENT, [build.create(odd)])
    store.write_records(
        "tenant-a", AGENT, [build.create(build.record("rec_02", tenant="tenant-a"))]
    )

    def found(labels: dict[str, str]) -> list[str]:
        return ids(store.find_records("tenant-b", AGENT, RecordQuery(labels=labels), 10, None))

    assert found({"customer.id": "c-1"}) == ["rec_01"]
    assert found({"it's": "yes"}) == ["rec_01"]
    assert found({"customer": "c-1"}) == []
    # A label name written as SQL finds nothing, least of all another tenant's records
    assert found({"x') = 'no' OR 1=1 OR json_extract(doc, '$.y": "v"}) == []


# -- tenants -----------------------------------------------------------------------------------


def test_tenants_never_see_each_others_records(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given the same agent id, session id and record id under two tenants
    agent_with_session(AGENT, tenant="tenant-a")
    agent_with_session(AGENT, tenant="tenant-b")
    mine = build.record("rec_01", tenant="tenant-a", summary="tenant a's")
    store.write_records("tenant-a", AGENT, [build.create(mine)])
    store.begin_turn(build.turn(build.session(build.agent(AGENT, "tenant-a")[0]), 1))
    execution = build.execution("exe_1")
    store.add_execution("tenant-a", AGENT, "ses_1", execution)
    store.stage_effect("tenant-a", AGENT, "ses_1", build.effect("eff_1", 1))
    everything = RecordQuery(statuses=frozenset(), preview="any", include_all_sessions=True)

    # Then the other tenant reads none of it
    assert store.get_records("tenant-b", AGENT, ["rec_01"]) == []
    assert store.find_records("tenant-b", AGENT, everything, 10, None) == []
    assert store.record_versions("tenant-b", AGENT, "rec_01", 10, None) == []
    assert store.list_executions("tenant-b", AGENT, "ses_1", "trn_0001") == []
    assert store.staged_effects("tenant-b", AGENT, "ses_1", "trn_0001") == []
    # ... cannot change it
    with pytest.raises(PreconditionFailed):
        store.write_records("tenant-b", AGENT, [build.change(mine, RecordOperation.DELETE)])
    # ... and keeps its own record of that id apart
    theirs = build.record("rec_01", tenant="tenant-b", summary="tenant b's")
    store.write_records("tenant-b", AGENT, [build.create(theirs)])
    assert store.get_records("tenant-a", AGENT, ["rec_01"]) == [mine]
    assert store.get_records("tenant-b", AGENT, ["rec_01"]) == [theirs]
    assert versions(store, "rec_01", tenant="tenant-a") == [build.version(mine)]
    assert store.find_records("tenant-a", AGENT, everything, 10, None) == [mine]
    assert store.list_executions("tenant-a", AGENT, "ses_1", "trn_0001") == [execution]


def test_records_belong_to_their_agent(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session(AGENT)
    agent_with_session("teams/web/releases")
    record = build.record("rec_01")
    store.write_records("acme", AGENT, [build.create(record)])

    assert store.get_records("acme", "teams/web/releases", ["rec_01"]) == []
    assert store.find_records("acme", "teams/web/releases", RecordQuery(), 10, None) == []
    assert store.find_records("acme", AGENT, RecordQuery(), 10, None) == [record]


def test_records_need_their_agent(store: Store, build: Build) -> None:
    with pytest.raises(PreconditionFailed):
        store.write_records(
            "acme", "ghost", [build.create(build.record("rec_01", agent_id="ghost"))]
        )

    assert store.get_records("acme", "ghost", ["rec_01"]) == []


# -- committing a turn -------------------------------------------------------------------------


def test_end_turn_with_writes_applies_every_one_of_them(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given a stored record and a turn that creates two and supersedes the stored one
    session = agent_with_session()
    old = build.record("rec_01")
    store.write_records("acme", AGENT, [build.create(old)])
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    new = build.record("rec_02", replaces="rec_01")
    noted = build.record("rec_03", session_id=session.id)
    writes = [
        build.create(new),
        build.change(old, RecordOperation.SUPERSEDE, replaced_by="rec_02"),
        build.create(noted),
    ]
    ended_at = utcnow()

    ended = store.end_turn(turn, TurnStatus.COMMITTED, ended_at, TurnWrites(writes))

    assert ended == turn.model_copy(update={"status": TurnStatus.COMMITTED, "ended_at": ended_at})
    assert store.get_turn("acme", AGENT, session.id, turn.id) == ended
    assert heads(store, "rec_01", "rec_02", "rec_03") == {w.record.id: w.record for w in writes}
    assert versions(store, "rec_01") == [writes[1].versions[0], build.version(old)]
    assert versions(store, "rec_02") == [build.version(new)]


def test_end_turn_with_one_stale_write_applies_nothing_and_leaves_the_turn_open(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given a record that an app changed after the turn read it
    session = agent_with_session()
    old = build.record("rec_01")
    store.write_records("acme", AGENT, [build.create(old)])
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    by_app = build.change(old, RecordOperation.DELETE)
    store.write_records("acme", AGENT, [by_app])
    writes = [
        build.create(build.record("rec_02", replaces="rec_01")),
        build.change(old, RecordOperation.SUPERSEDE, replaced_by="rec_02"),  # expects version 1
    ]

    with pytest.raises(PreconditionFailed):
        store.end_turn(turn, TurnStatus.COMMITTED, utcnow(), TurnWrites(writes))

    # Then the turn is still open and no record moved ...
    assert store.get_turn("acme", AGENT, session.id, turn.id) == turn
    assert heads(store, "rec_01", "rec_02") == {"rec_01": by_app.record}
    assert [v.record.version for v in versions(store, "rec_01")] == [2, 1]
    assert versions(store, "rec_02") == []
    # ... so the turn can still be rolled back
    store.end_turn(turn, TurnStatus.ROLLED_BACK, utcnow())


def test_end_turn_of_an_ended_turn_applies_no_writes(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    ended = store.end_turn(turn, TurnStatus.ROLLED_BACK, utcnow())

    with pytest.raises(PreconditionFailed):
        store.end_turn(
            turn,
            TurnStatus.COMMITTED,
            utcnow(),
            TurnWrites([build.create(build.record("rec_01"))]),
        )

    assert store.get_turn("acme", AGENT, session.id, turn.id) == ended
    assert store.get_records("acme", AGENT, ["rec_01"]) == []
    assert versions(store, "rec_01") == []


# -- delete ------------------------------------------------------------------------------------


def test_delete_removes_records_versions_executions_and_effects(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given an agent with records (one at version 2), and a turn that logged and staged
    session = agent_with_session()
    record = build.record("rec_01")
    store.write_records(
        "acme",
        AGENT,
        [build.create(record), build.create(build.record("rec_02", session_id="ses_1"))],
    )
    store.write_records("acme", AGENT, [build.change(record, RecordOperation.DELETE)])
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    store.add_execution("acme", AGENT, session.id, build.execution("exe_1"))
    store.stage_effect("acme", AGENT, session.id, build.effect("eff_1", 1))
    neighbour = build.record("rec_01", agent_id="teams/web/releases")
    agent_with_session("teams/web/releases")
    store.write_records("acme", "teams/web/releases", [build.create(neighbour)])
    everything = RecordQuery(statuses=frozenset(), preview="any", include_all_sessions=True)

    assert store.delete_agent("acme", AGENT) is True

    assert store.get_records("acme", AGENT, ["rec_01", "rec_02"]) == []
    assert store.find_records("acme", AGENT, everything, 10, None) == []
    assert versions(store, "rec_01") == []
    assert store.list_executions("acme", AGENT, session.id, turn.id) == []
    assert store.staged_effects("acme", AGENT, session.id, turn.id) == []
    # When the agent, its session and its turn are made again, they start empty
    agent_with_session()
    store.begin_turn(turn)
    assert store.find_records("acme", AGENT, everything, 10, None) == []
    assert versions(store, "rec_01") == []
    assert store.list_executions("acme", AGENT, session.id, turn.id) == []
    assert store.staged_effects("acme", AGENT, session.id, turn.id) == []
    # ... and the effect id and the record id are free again
    store.stage_effect("acme", AGENT, session.id, build.effect("eff_1", 1))
    store.write_records("acme", AGENT, [build.create(record)])
    assert versions(store, "rec_01") == [build.version(record)]
    # The neighbour agent kept its records
    assert store.find_records("acme", "teams/web/releases", everything, 10, None) == [neighbour]
