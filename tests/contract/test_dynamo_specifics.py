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
from agent_memory.domain.errors import Conflict, NotFound, StorageUnavailable
from agent_memory.domain.models import Session, TurnStatus, utcnow
from agent_memory.domain.ports import PreconditionFailed

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

READS = {"GetItem", "Query", "Scan", "DescribeTable"}


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
    batch_delete = store._batch_delete
    batches: list[int] = []

    def crash_on_second_batch(batch: list[dict[str, Any]]) -> None:
        batches.append(len(batch))
        if len(batches) == 2:
            raise StorageUnavailable("simulated crash")
        batch_delete(batch)

    monkeypatch.setattr(store, "_batch_delete", crash_on_second_batch)
    with pytest.raises(StorageUnavailable):
        store.delete_agent("acme", "teams/web")
    monkeypatch.undo()

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
    head = store._items.agent
    head.key("T#acme#AGENTS", "A#support").update([head.deleting.set(True)])

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
