"""What only DynamoStore has: a delete that can be interrupted, one request per mutation, and
the translation of DynamoDB failures. SqliteStore deletes in one transaction and has none of this.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest
from pynamodb.exceptions import PynamoDBException

from agent_memory.adapters.dynamodb import DynamoStore
from agent_memory.domain.kernel.errors import (
    Conflict,
    LimitExceeded,
    NotFound,
    PayloadTooLarge,
    PreconditionFailed,
    StorageUnavailable,
)
from agent_memory.domain.kernel.models import Session, TurnStatus, utcnow
from agent_memory.domain.records.models import Record, RecordOperation, RecordQuery
from agent_memory.domain.sessions.ports import TurnWrites

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

READS = {"GetItem", "BatchGetItem", "Query", "Scan", "DescribeTable"}


@pytest.fixture
def store(dynamo_store: DynamoStore) -> DynamoStore:
    return dynamo_store


@pytest.fixture
def calls(store: DynamoStore) -> Iterator[list[str]]:
    """Names of the DynamoDB operations the store calls, in order."""
    seen: list[str] = []

    def record(model: Any, **_: Any) -> None:
        seen.append(model.name)

    events = store.connection.client.meta.events
    events.register("before-call.dynamodb", record)
    yield seen
    events.unregister("before-call.dynamodb", record)


def writes(calls: list[str]) -> list[str]:
    return [name for name in calls if name not in READS]


@pytest.fixture
def failing(store: DynamoStore) -> Iterator[Callable[[str, dict[str, Any]], None]]:
    """Make the next calls of one operation fail with the given DynamoDB error response."""
    events = store.connection.client.meta.events
    installed: list[tuple[str, Callable[..., Any]]] = []

    def fail(operation: str, error: dict[str, Any]) -> None:
        def respond(**_: Any) -> tuple[Any, dict[str, Any]]:
            return SimpleNamespace(status_code=400, headers={}), {
                "ResponseMetadata": {"HTTPStatusCode": 400, "HTTPHeaders": {}},
                **error,
            }

        event = f"before-call.dynamodb.{operation}"
        events.register_first(event, respond)
        installed.append((event, respond))

    yield fail
    for event, handler in installed:
        events.unregister(event, handler)


def table_keys(store: DynamoStore) -> list[tuple[str, str]]:
    return [(item.pk, item.sk) for item in store._items.item.scan(consistent_read=True)]


def _mark_deleting(store: DynamoStore, agent_id: str) -> None:
    """Mark acme's `agent_id` as a delete does first, leaving the walk undone."""
    head = store._items.agent
    head.key("T#acme#AGENTS", f"A#{agent_id}").update([head.deleting.set(True)])


def _delete_crashing_on_batch(
    store: DynamoStore, monkeypatch: pytest.MonkeyPatch, crash_at: int
) -> None:
    """Deletes acme's teams/web with a crash (StorageUnavailable) on the `crash_at`th batch
    delete, as a Lambda timing out part way would leave it; later batches run as usual."""
    batch_delete = store._batch_delete
    batches = 0

    def crashing(batch: list[dict[str, Any]]) -> None:
        nonlocal batches
        batches += 1
        if batches == crash_at:
            raise StorageUnavailable("simulated crash")
        batch_delete(batch)

    monkeypatch.setattr(store, "_batch_delete", crashing)
    with pytest.raises(StorageUnavailable):
        store.delete_agent("acme", "teams/web")
    monkeypatch.undo()


def _agent_with_turns(store: DynamoStore, build: Build, agent_id: str, turns: int) -> Session:
    agent, version = build.agent(agent_id)
    store.create_agent(agent, version)
    store.save_manifest(*build.next_version(agent, {"v": 2}), expected_version=1)
    session = build.session(agent)
    store.create_session(session)
    for sequence in range(1, turns + 1):
        store.begin_turn(build.turn(session, sequence))
    return session


# -- interrupted delete ------------------------------------------------------------------------


def test_an_interrupted_delete_hides_the_agent_and_the_next_delete_finishes_it(
    store: DynamoStore, build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an agent whose delete crashes after its first batch (30 turns need two batches)
    session = _agent_with_turns(store, build, "teams/web", turns=30)
    neighbour = build.agent("teams/web/releases")
    store.create_agent(*neighbour)
    before = set(table_keys(store))
    _delete_crashing_on_batch(store, monkeypatch, 2)

    # Then part of it is gone, the rest (head included) is still stored ...
    remaining = set(table_keys(store))
    assert len(before) - len(remaining) == 25
    assert ("T#acme#AGENTS", "A#teams/web") in remaining
    assert store.get_session("acme", "teams/web", session.id) is not None
    # ... but the agent reads as gone and nothing can be added to it
    assert store.get_agent("acme", "teams/web") is None
    assert [a.id for a in store.list_agents("acme", 10, None)] == ["teams/web/releases"]
    with pytest.raises(Conflict) as deleting:
        store.create_agent(*build.agent("teams/web"))
    assert deleting.value.code == "agent_deleting"
    assert not isinstance(deleting.value, PreconditionFailed)  # no point retrying a create
    with pytest.raises(NotFound):
        store.create_session(build.session(neighbour[0].model_copy(update={"id": "teams/web"})))
    agent, _ = build.agent("teams/web")
    with pytest.raises(PreconditionFailed):
        store.save_manifest(*build.next_version(agent, {"v": 3}), expected_version=2)
    with pytest.raises(PreconditionFailed):
        store.begin_turn(build.turn(session, 31))

    # When the delete is called again it finishes the job
    assert store.delete_agent("acme", "teams/web") is True

    neighbour_keys = {
        ("T#acme#AGENTS", "A#teams/web/releases"),
        ("T#acme#A#teams/web/releases", "MV#0000000001"),
    }
    assert set(table_keys(store)) == neighbour_keys
    assert store.delete_agent("acme", "teams/web") is False
    store.create_agent(*build.agent("teams/web"))
    assert store.list_sessions("acme", "teams/web", 10, None) == []


def test_a_delete_interrupted_right_after_marking_is_finished_too(
    store: DynamoStore, build: Build
) -> None:
    _agent_with_turns(store, build, "support", turns=2)
    _mark_deleting(store, "support")

    assert store.get_agent("acme", "support") is None
    assert store.delete_agent("acme", "support") is True
    assert table_keys(store) == []


# -- one request per mutation ------------------------------------------------------------------


def test_every_multi_item_change_is_one_transaction(
    store: DynamoStore, build: Build, calls: list[str]
) -> None:
    agent, version = build.agent("support")
    store.create_agent(agent, version)
    assert writes(calls) == ["TransactWriteItems"]

    calls.clear()
    store.save_manifest(*build.next_version(agent, {"v": 2}), expected_version=1)
    assert writes(calls) == ["TransactWriteItems"]

    calls.clear()
    session = build.session(agent)
    store.create_session(session)
    assert writes(calls) == ["TransactWriteItems"]

    calls.clear()
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    assert writes(calls) == ["TransactWriteItems"]

    calls.clear()
    store.end_turn(turn, TurnStatus.COMMITTED, utcnow())
    assert writes(calls) == ["UpdateItem"]


def test_a_refused_change_is_one_transaction_that_wrote_nothing(
    store: DynamoStore, build: Build, calls: list[str]
) -> None:
    agent, version = build.agent("support")
    store.create_agent(agent, version)
    before = table_keys(store)
    calls.clear()

    with pytest.raises(PreconditionFailed):
        store.save_manifest(*build.next_version(agent, {"v": 2}), expected_version=7)

    assert writes(calls) == ["TransactWriteItems"]
    assert table_keys(store) == before


# -- error translation -------------------------------------------------------------------------


def test_throttling_becomes_storage_unavailable(
    store: DynamoStore, build: Build, failing: Callable[[str, dict[str, Any]], None]
) -> None:
    agent, version = build.agent("support")
    failing("TransactWriteItems", {"Error": {"Code": "ThrottlingException", "Message": "slow"}})
    failing("GetItem", {"Error": {"Code": "ProvisionedThroughputExceededException"}})

    with pytest.raises(StorageUnavailable) as writing:
        store.create_agent(agent, version)
    with pytest.raises(StorageUnavailable) as reading:
        store.get_agent("acme", "support")

    assert isinstance(writing.value.__cause__, PynamoDBException)
    assert writing.value.details["aws_code"] == "ThrottlingException"
    assert isinstance(reading.value.__cause__, PynamoDBException)


def test_a_transaction_conflict_is_a_lost_race(
    store: DynamoStore, build: Build, failing: Callable[[str, dict[str, Any]], None]
) -> None:
    # Given a begin that DynamoDB cancels because another transaction held the session item
    agent, version = build.agent("support")
    store.create_agent(agent, version)
    session = build.session(agent)
    store.create_session(session)
    failing(
        "TransactWriteItems",
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "cancelled"},
            "CancellationReasons": [
                {"Code": "None"},
                {"Code": "None"},
                {"Code": "TransactionConflict"},
            ],
        },
    )

    # Then the store reports the race the services retry, and nothing moved
    with pytest.raises(PreconditionFailed) as raised:
        store.begin_turn(build.turn(session, 1))
    assert isinstance(raised.value.__cause__, PynamoDBException)
    assert store.get_session("acme", "support", session.id) == session


def test_create_session_tells_a_missing_agent_from_an_existing_session(
    store: DynamoStore, build: Build
) -> None:
    # Both conditions fail here (no agent, and a session item left behind by hand): the missing
    # agent wins, because creating the session could never succeed without it.
    agent, _ = build.agent("ghost")
    session = build.session(agent)
    store._items.session.of(session).save()

    with pytest.raises(NotFound) as raised:
        store.create_session(session)

    assert raised.value.code == "agent_not_found"


# -- record memory and the turn log ------------------------------------------------------------


def _agent_with_records(
    store: DynamoStore, build: Build, count: int
) -> tuple[Session, list[Record]]:
    agent, version = build.agent("teams/web")
    store.create_agent(agent, version)
    session = build.session(agent)
    store.create_session(session)
    records = [build.record(f"rec_{n:03d}") for n in range(1, count + 1)]
    for start in range(0, count, 24):
        store.write_records(
            "acme", "teams/web", [build.create(r) for r in records[start : start + 24]]
        )
    return session, records


def test_record_writes_and_commits_are_one_transaction_each(
    store: DynamoStore, build: Build, calls: list[str]
) -> None:
    session, (first, second) = _agent_with_records(store, build, 2)
    turn = build.turn(session, 1)
    store.begin_turn(turn)

    calls.clear()
    store.write_records(
        "acme", "teams/web", [build.create(build.record("rec_003")), build.change(first)]
    )
    assert writes(calls) == ["TransactWriteItems"]

    calls.clear()
    with pytest.raises(PreconditionFailed):
        store.write_records("acme", "teams/web", [build.change(first)])  # stale now
    assert writes(calls) == ["TransactWriteItems"]

    calls.clear()
    with pytest.raises(PreconditionFailed):
        store.end_turn(turn, TurnStatus.COMMITTED, utcnow(), TurnWrites([build.change(first)]))
    assert writes(calls) == ["TransactWriteItems"]

    calls.clear()
    commit = [build.create(build.record("rec_004")), build.change(second)]
    store.end_turn(turn, TurnStatus.COMMITTED, utcnow(), TurnWrites(commit))
    assert writes(calls) == ["TransactWriteItems"]


def test_the_largest_commit_a_turn_can_make_is_one_transaction(
    store: DynamoStore, build: Build, calls: list[str]
) -> None:
    # Given 24 stored records, and a turn whose 24 writes each add a record replacing one of them
    session, stored = _agent_with_records(store, build, 24)
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    commit = []
    for old in stored:
        new = build.record(old.id.replace("rec_", "rec_new_"), replaces=old.id)
        superseded = build.change(old, RecordOperation.SUPERSEDE, replaced_by=new.id)
        commit += [build.create(new), superseded]
    calls.clear()

    store.end_turn(
        turn, TurnStatus.COMMITTED, utcnow(), TurnWrites(commit)
    )  # 96 puts, a check, an update

    assert writes(calls) == ["TransactWriteItems"]
    found = store.get_records("acme", "teams/web", [w.record.id for w in commit])
    assert found == sorted((w.record for w in commit), key=lambda r: r.id)


def test_a_change_dynamodb_would_refuse_is_refused_before_it_is_sent(
    store: DynamoStore, build: Build, calls: list[str]
) -> None:
    session, _ = _agent_with_records(store, build, 0)
    big = "x" * 100_000
    too_many = [build.create(build.record(f"rec_{n:03d}")) for n in range(50)]  # 100 puts + 1
    too_big = [build.create(build.record(f"rec_{n:03d}", content=big)) for n in range(21)]
    twice = [build.create(build.record("rec_001")), build.create(build.record("rec_001"))]
    before = table_keys(store)
    calls.clear()

    for refused in (too_many, too_big):
        with pytest.raises(PayloadTooLarge) as raised:
            store.write_records("acme", "teams/web", refused)
        assert raised.value.code == "transaction_too_large"
    with pytest.raises(ValueError, match="twice"):
        store.write_records("acme", "teams/web", twice)

    assert writes(calls) == []
    assert table_keys(store) == before


def test_the_turn_log_and_records_are_keyed_as_documented(store: DynamoStore, build: Build) -> None:
    session, (record,) = _agent_with_records(store, build, 1)
    store.write_records("acme", "teams/web", [build.change(record)])
    store.begin_turn(build.turn(session, 1))
    store.add_execution("acme", "teams/web", session.id, build.execution("exe_1"))
    store.stage_effect("acme", "teams/web", session.id, build.effect("eff_1", 7))

    assert set(table_keys(store)) >= {
        ("T#acme#A#teams/web#R", "R#rec_001"),
        ("T#acme#A#teams/web#R#rec_001", "V#00000001"),
        ("T#acme#A#teams/web#R#rec_001", "V#00000002"),
        ("T#acme#A#teams/web#S#ses_1", "X#trn_0001#exe_1"),
        ("T#acme#A#teams/web#S#ses_1", "FX#trn_0001#000007"),
        ("T#acme#A#teams/web#S#ses_1", "FXID#trn_0001#eff_1"),
    }
    # Nothing of it shows up among the agent's sessions or manifest versions
    assert [s.id for s in store.list_sessions("acme", "teams/web", 10, None)] == [session.id]
    assert len(store.list_manifest_versions("acme", "teams/web", 10, None)) == 1


def test_finding_records_by_id_reads_only_those(
    store: DynamoStore, build: Build, calls: list[str]
) -> None:
    _agent_with_records(store, build, 30)
    calls.clear()

    found = store.find_records(
        "acme", "teams/web", RecordQuery(ids=frozenset({"rec_002", "rec_020"})), 10, None
    )

    assert [r.id for r in found] == ["rec_020", "rec_002"]
    assert calls == ["BatchGetItem"]


def test_nothing_is_added_to_an_agent_being_deleted(store: DynamoStore, build: Build) -> None:
    # Given an agent whose delete has marked the head and not walked yet
    session, (record,) = _agent_with_records(store, build, 1)
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    _mark_deleting(store, "teams/web")
    before = table_keys(store)

    # Then no record, execution, effect or commit can slip in behind the walk
    with pytest.raises(PreconditionFailed):
        store.write_records("acme", "teams/web", [build.create(build.record("rec_002"))])
    with pytest.raises(PreconditionFailed):
        store.add_execution("acme", "teams/web", session.id, build.execution("exe_1"))
    with pytest.raises(PreconditionFailed):
        store.stage_effect("acme", "teams/web", session.id, build.effect("eff_1", 1))
    with pytest.raises(PreconditionFailed):
        store.end_turn(turn, TurnStatus.COMMITTED, utcnow(), TurnWrites([build.change(record)]))
    assert table_keys(store) == before
    assert store.delete_agent("acme", "teams/web") is True
    assert table_keys(store) == []


def test_an_interrupted_delete_never_strands_record_versions(
    store: DynamoStore, build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given 30 records with two versions each, and a delete that crashes on its fourth batch
    # (versions of 25 records in two, their heads in the third, then the other versions)
    _, records = _agent_with_records(store, build, 30)
    store.write_records("acme", "teams/web", [build.change(r) for r in records[:24]])
    store.write_records("acme", "teams/web", [build.change(r) for r in records[24:]])
    _delete_crashing_on_batch(store, monkeypatch, 4)

    # Then part of the records are gone, and every version left has its head
    remaining = set(table_keys(store))
    heads = {sk.removeprefix("R#") for pk, sk in remaining if pk == "T#acme#A#teams/web#R"}
    assert heads == {f"rec_{n:03d}" for n in range(26, 31)}
    version_partitions = {pk for pk, _ in remaining if pk.startswith("T#acme#A#teams/web#R#")}
    assert version_partitions <= {f"T#acme#A#teams/web#R#{rid}" for rid in heads}
    assert store.get_agent("acme", "teams/web") is None
    # And the next delete finishes the job
    assert store.delete_agent("acme", "teams/web") is True
    assert table_keys(store) == []


# -- file memory -------------------------------------------------------------------------------


def _agent_with_files(store: DynamoStore, build: Build, count: int) -> Session:
    agent, version = build.agent("teams/web")
    store.create_agent(agent, version)
    session = build.session(agent)
    store.create_session(session)
    creates = [build.create_file(f"/memories/{n:03d}.md") for n in range(count)]
    for start in range(0, count, 24):
        store.write_files("acme", "teams/web", creates[start : start + 24], 10_000)
    return session


def test_file_writes_and_commits_are_one_transaction_each(
    store: DynamoStore, build: Build, calls: list[str]
) -> None:
    session = _agent_with_files(store, build, 0)
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    create = build.create_file("/memories/a.md")

    calls.clear()
    store.write_files("acme", "teams/web", [create, build.create_file("/memories/b.md")], 10)
    assert writes(calls) == ["TransactWriteItems"]

    assert create.head is not None
    for refused, error in (
        ([build.update_file(create.head, "x", expected_version=5)], PreconditionFailed),
        ([build.create_file("/memories/c.md")], LimitExceeded),
    ):
        calls.clear()
        with pytest.raises(error):
            store.write_files("acme", "teams/web", refused, 2)
        assert writes(calls) == ["TransactWriteItems"]

    calls.clear()
    with pytest.raises(LimitExceeded):
        store.end_turn(
            turn, TurnStatus.COMMITTED, utcnow(), TurnWrites([], [build.create_file("/m/c.md")], 2)
        )
    assert writes(calls) == ["TransactWriteItems"]

    calls.clear()
    commit = [build.update_file(create.head, "changed"), build.create_file("/memories/c.md")]
    record = build.create(build.record("rec_001"))
    store.end_turn(turn, TurnStatus.COMMITTED, utcnow(), TurnWrites([record], commit, 3))
    assert writes(calls) == ["TransactWriteItems"]
    assert store.count_files("acme", "teams/web") == 3


def test_files_are_keyed_as_documented(store: DynamoStore, build: Build) -> None:
    session = _agent_with_files(store, build, 0)
    create = build.create_file("/memories/#a.md")
    store.write_files("acme", "teams/web", [create], 10)
    store.save_session_index("acme", "teams/web", session.id, "index", utcnow())

    assert set(table_keys(store)) >= {
        ("T#acme#A#teams/web#F", "F#/memories/#a.md"),
        ("T#acme#A#teams/web#FV", f"V#{create.versions[0].id}"),
        ("T#acme#A#teams/web", "FCOUNT"),
        ("T#acme#A#teams/web#S#ses_1", "INDEX"),
    }
    # Nothing of it shows up among the agent's sessions or manifest versions
    assert [s.id for s in store.list_sessions("acme", "teams/web", 10, None)] == [session.id]
    assert len(store.list_manifest_versions("acme", "teams/web", 10, None)) == 1
    assert len(store.list_manifest_versions("acme", "teams/web", 10, 1)) == 0


def test_listing_files_never_reads_their_content(store: DynamoStore, build: Build) -> None:
    _agent_with_files(store, build, 3)
    queries: list[dict[str, Any]] = []

    def record(params: dict[str, Any], **_: Any) -> None:
        queries.append(params)

    events = store.connection.client.meta.events
    events.register("provide-client-params.dynamodb.Query", record)
    try:
        listed = store.list_files("acme", "teams/web", "/memories/", 10, None)
    finally:
        events.unregister("provide-client-params.dynamodb.Query", record)

    heads = [store.get_file("acme", "teams/web", f.path) for f in listed]
    assert listed == [h.model_copy(update={"content": ""}) for h in heads if h]
    assert len(listed) == 3
    (query,) = queries
    assert "ProjectionExpression" in query
    assert "content" not in query["ExpressionAttributeNames"].values()


def test_a_file_change_dynamodb_would_refuse_is_refused_before_it_is_sent(
    store: DynamoStore, build: Build, calls: list[str]
) -> None:
    # A create of a largest memory (100 KiB) writes it twice, in its head and its version, so
    # one transaction (4 MB) takes 20 of them and no more.
    _agent_with_files(store, build, 0)
    big = "x" * (100 * 1024)
    twenty = [build.create_file(f"/memories/{n:02d}.md", big) for n in range(20)]
    one_more = build.create_file("/memories/20.md", big)
    calls.clear()

    with pytest.raises(PayloadTooLarge) as raised:
        store.write_files("acme", "teams/web", [*twenty, one_more], 100)
    assert raised.value.code == "transaction_too_large"
    assert writes(calls) == []
    # The same path twice is refused too: one transaction cannot write an item twice
    assert twenty[0].head is not None
    twice = [twenty[0], build.update_file(twenty[0].head, "again")]
    with pytest.raises(ValueError, match="twice"):
        store.write_files("acme", "teams/web", twice, 100)
    assert writes(calls) == []

    store.write_files("acme", "teams/web", twenty, 100)
    assert store.count_files("acme", "teams/web") == 20


def test_a_transaction_conflict_on_the_count_is_a_lost_race_not_the_limit(
    store: DynamoStore, build: Build, failing: Callable[[str, dict[str, Any]], None]
) -> None:
    _agent_with_files(store, build, 0)
    failing(
        "TransactWriteItems",
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "cancelled"},
            "CancellationReasons": [{"Code": "None"}, {"Code": "None"}, {"Code": "None"}]
            + [{"Code": "TransactionConflict"}],
        },
    )

    with pytest.raises(PreconditionFailed) as raised:
        store.write_files("acme", "teams/web", [build.create_file("/memories/a.md")], 10)

    assert not isinstance(raised.value, LimitExceeded)
    assert store.count_files("acme", "teams/web") == 0


def test_no_file_or_index_is_added_to_an_agent_being_deleted(
    store: DynamoStore, build: Build
) -> None:
    session = _agent_with_files(store, build, 2)
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    _mark_deleting(store, "teams/web")
    before = table_keys(store)

    with pytest.raises(PreconditionFailed):
        store.write_files("acme", "teams/web", [build.create_file("/memories/new.md")], 10)
    with pytest.raises(PreconditionFailed):
        store.save_session_index("acme", "teams/web", session.id, "index", utcnow())
    with pytest.raises(PreconditionFailed):
        store.end_turn(
            turn,
            TurnStatus.COMMITTED,
            utcnow(),
            TurnWrites([], [build.create_file("/memories/new.md")]),
        )
    assert table_keys(store) == before
    assert store.delete_agent("acme", "teams/web") is True
    assert table_keys(store) == []


def test_an_interrupted_delete_of_an_agent_with_files_is_finished_by_the_next(
    store: DynamoStore, build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given 40 memories (two batches of heads, two of versions) and a delete crashing on its
    # third batch, part way through the versions
    session = _agent_with_files(store, build, 40)
    store.save_session_index("acme", "teams/web", session.id, "index", utcnow())
    _delete_crashing_on_batch(store, monkeypatch, 3)

    assert store.list_files("acme", "teams/web", "/", 100, None) == []
    assert store.get_agent("acme", "teams/web") is None
    assert store.delete_agent("acme", "teams/web") is True
    assert table_keys(store) == []


def test_history_that_keeps_losing_its_transaction_gives_up_after_four_rounds(
    store: DynamoStore,
    build: Build,
    calls: list[str],
    failing: Callable[[str, dict[str, Any]], None],
) -> None:
    # Given an open turn whose every history transaction DynamoDB cancels as a conflict
    agent, version = build.agent("support")
    store.create_agent(agent, version)
    session = build.session(agent)
    store.create_session(session)
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    failing(
        "TransactWriteItems",
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "cancelled"},
            "CancellationReasons": [{"Code": "TransactionConflict"}] * 4,
        },
    )
    calls.clear()

    # Then the append reads again and tries four rounds, reports the lost race it gave up on
    # (caused by the last one), and keeps nothing
    with pytest.raises(PreconditionFailed) as raised:
        store.append_events("acme", "support", session.id, [build.event(turn, 1)])
    assert raised.value.message == "history events changed concurrently; try again"
    assert isinstance(raised.value.__cause__, PreconditionFailed)
    assert calls.count("BatchGetItem") == 4  # each round reads what is kept first
    assert store.turn_events("acme", "support", session.id, turn.id) == []
