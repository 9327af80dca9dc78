"""The HistoryStore port's contract (and SessionStore.list_turns): every test runs against
SqliteStore and DynamoStore (under moto); the last ones are what only DynamoStore has, large
events in S3 and batches cut to DynamoDB's transaction limits."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import boto3
import pytest

import index_docs
from agent_memory.adapters.dynamodb import DynamoStore
from agent_memory.domain.history.models import HistoryEvent
from agent_memory.domain.kernel.errors import PayloadTooLarge, PreconditionFailed
from agent_memory.domain.kernel.models import Session, Turn, TurnStatus, utcnow
from agent_memory.domain.sessions.ports import TurnWrites
from agent_memory.domain.store import Store

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]
BUCKET = "agent-memory-history"
REGION = "us-east-1"


def _turns(store: Store, build: Build, session: Session, count: int) -> list[Turn]:
    turns = [build.turn(session, n) for n in range(1, count + 1)]
    for turn in turns:
        store.begin_turn(turn)
    return turns


def _page_all(store: Store, session: Session, limit: int, **range_: Any) -> list[HistoryEvent]:
    """Every event of the session in pages of `limit`, each after the last one read."""
    seen: list[HistoryEvent] = []
    after: tuple[int, int] | None = None
    while True:
        page = store.session_events(
            session.tenant, session.agent_id, session.id, limit, after, **range_
        )
        seen.extend(page)
        if len(page) < limit:
            return seen
        after = (page[-1].turn_sequence, page[-1].sequence)


# -- appending and reading a turn's events -------------------------------------------------------


def test_appended_events_read_back_whole_in_sequence_order(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    (turn,) = _turns(store, build, session, 1)
    events = [build.event(turn, n) for n in (3, 1, 2)]
    events.append(build.event(turn, 4, role="user", tool_name=None, call_id=None, tool_calls=[]))

    store.append_events("acme", "teams/web", session.id, events)

    assert store.turn_events("acme", "teams/web", session.id, turn.id) == sorted(
        events, key=lambda e: e.sequence
    )


def test_events_of_a_turn_are_only_that_turns(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    first, second = _turns(store, build, session, 2)
    store.append_events("acme", "teams/web", session.id, [build.event(first, 1)])
    store.append_events("acme", "teams/web", session.id, [build.event(second, 1)])

    assert [e.turn_id for e in store.turn_events("acme", "teams/web", session.id, first.id)] == [
        first.id
    ]
    assert store.turn_events("acme", "teams/web", session.id, "trn_none") == []


def test_appending_an_event_again_keeps_the_first(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    (turn,) = _turns(store, build, session, 1)
    first = build.event(turn, 1, text="the first text")
    # Every event written as given: the store says so (the caller reads nothing back).
    assert store.append_events("acme", "teams/web", session.id, [first]) is True

    # A replayed append with another text, next to a new event and a repeat within the batch
    again = build.event(turn, 1, text="another text")
    new = build.event(turn, 2, text="new")
    written = store.append_events(
        "acme", "teams/web", session.id, [again, new, build.event(turn, 2, text="repeat")]
    )

    assert store.turn_events("acme", "teams/web", session.id, turn.id) == [first, new]
    # Not every event is what its id holds: the store does not say they were all written.
    assert written is False
    # Sent once more, alone: its id holds the event already, so it was not written by this call.
    assert store.append_events("acme", "teams/web", session.id, [new]) is False


def test_appending_to_a_missing_turn_fails_and_keeps_nothing(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    (turn,) = _turns(store, build, session, 1)
    ghost = build.turn(session, 2, "trn_ghost")  # never begun

    with pytest.raises(PreconditionFailed):
        store.append_events(
            "acme", "teams/web", session.id, [build.event(turn, 1), build.event(ghost, 1)]
        )

    assert store.turn_events("acme", "teams/web", session.id, turn.id) == []
    assert store.session_events("acme", "teams/web", session.id, 10, None) == []


def test_appending_to_a_turn_of_another_session_fails(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    (turn,) = _turns(store, build, session, 1)
    agent = store.get_agent("acme", "teams/web")
    assert agent is not None
    other = build.session(agent, "ses_2")
    store.create_session(other)

    with pytest.raises(PreconditionFailed):
        store.append_events("acme", "teams/web", other.id, [build.event(turn, 1)])

    assert store.session_events("acme", "teams/web", other.id, 10, None) == []


def test_appending_nothing_changes_nothing(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()

    store.append_events("acme", "teams/web", session.id, [])

    assert store.session_events("acme", "teams/web", session.id, 10, None) == []


def test_a_batch_larger_than_one_transaction_is_kept_whole(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # 150 events: DynamoStore takes at most 49 in one transaction (the service sends up to 500;
    # moto copies the table for each item of a transaction, so more would only be slow here)
    session = agent_with_session()
    (turn,) = _turns(store, build, session, 1)
    events = [build.event(turn, n, text=f"event {n}") for n in range(1, 151)]

    store.append_events("acme", "teams/web", session.id, events)

    assert store.turn_events("acme", "teams/web", session.id, turn.id) == events
    assert _page_all(store, session, 60) == events


def test_a_long_event_reads_back_exactly(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Near the largest an item holds inline, in a script whose characters take 3 bytes each
    session = agent_with_session()
    (turn,) = _turns(store, build, session, 1)
    event = build.event(turn, 1, text="\u4e2d\u6587 " * 38_000 + '"\\\n\t')

    store.append_events("acme", "teams/web", session.id, [event])

    assert store.get_events("acme", "teams/web", session.id, [event.id]) == [event]


# -- reading by id -----------------------------------------------------------------------------


def test_get_events_reads_those_that_exist_in_history_order(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    first, second = _turns(store, build, session, 2)
    a, b = build.event(first, 1), build.event(first, 2)
    c = build.event(second, 1)
    store.append_events("acme", "teams/web", session.id, [a, b])
    store.append_events("acme", "teams/web", session.id, [c])

    found = store.get_events(
        "acme", "teams/web", session.id, [c.id, "evt_missing", a.id, c.id, "evt_#odd"]
    )

    assert found == [a, c]
    assert store.get_events("acme", "teams/web", session.id, []) == []


def test_get_events_reads_only_the_sessions_own(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    (turn,) = _turns(store, build, session, 1)
    event = build.event(turn, 1)
    store.append_events("acme", "teams/web", session.id, [event])
    agent = store.get_agent("acme", "teams/web")
    assert agent is not None
    store.create_session(build.session(agent, "ses_2"))

    assert store.get_events("acme", "teams/web", "ses_2", [event.id]) == []


# -- a session's history in order ---------------------------------------------------------------


def _history(store: Store, build: Build, session: Session) -> list[HistoryEvent]:
    """Three turns of 3, 0 and 2 events, appended out of order; the events in history order."""
    turns = _turns(store, build, session, 3)
    events = {
        1: [build.event(turns[0], n) for n in (1, 2, 3)],
        3: [build.event(turns[2], n) for n in (1, 5)],
    }
    store.append_events("acme", "teams/web", session.id, events[3][::-1])
    store.append_events("acme", "teams/web", session.id, events[1][::-1])
    return events[1] + events[3]


def test_session_events_are_in_turn_then_sequence_order(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    history = _history(store, build, session)

    assert store.session_events("acme", "teams/web", session.id, 100, None) == history
    assert store.session_events("acme", "teams/web", session.id, 2, None) == history[:2]
    assert store.session_events("acme", "teams/web", session.id, 0, None) == []


def test_session_events_page_strictly_after_a_position(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    history = _history(store, build, session)

    def after(position: tuple[int, int]) -> list[HistoryEvent]:
        return store.session_events("acme", "teams/web", session.id, 100, position)

    assert after((1, 2)) == history[2:]
    assert after((1, 3)) == history[3:]
    assert after((2, 0)) == history[3:]  # a turn without events
    assert after((3, 1)) == history[4:]
    assert after((3, 5)) == []
    assert after((-1, -1)) == history
    assert after((0, 99)) == history
    for limit in (1, 2, 3, 5):
        assert _page_all(store, session, limit) == history


def test_session_events_keep_to_a_turn_range(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    history = _history(store, build, session)
    first, third = history[:3], history[3:]

    def within(**range_: int) -> list[HistoryEvent]:
        return store.session_events("acme", "teams/web", session.id, 100, None, **range_)

    assert within(from_turn=1, to_turn=1) == first
    assert within(from_turn=2) == third
    assert within(from_turn=3, to_turn=3) == third
    assert within(to_turn=2) == first
    assert within(from_turn=2, to_turn=2) == []
    assert within(from_turn=3, to_turn=1) == []
    assert within(from_turn=4) == []
    assert within(from_turn=0, to_turn=10) == history
    assert within(to_turn=-1) == []
    # A range and a position together, page by page
    assert _page_all(store, session, 1, from_turn=1, to_turn=1) == first
    ranged = store.session_events("acme", "teams/web", session.id, 100, (1, 1), to_turn=1)
    assert ranged == first[1:]


def test_session_events_of_a_session_without_history_are_none(
    store: Store, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()

    assert store.session_events("acme", "teams/web", session.id, 10, None) == []
    assert store.session_events("acme", "teams/web", "ses_missing", 10, None) == []


# -- turns -------------------------------------------------------------------------------------


def test_list_turns_is_in_sequence_order(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    # Ids that sort against their sequences, and more than one page would hold
    turns = [build.turn(session, n, f"trn_{99 - n:02d}") for n in range(1, 13)]
    for turn in turns:
        store.begin_turn(turn)
    ended = store.end_turn(turns[0], TurnStatus.COMMITTED, utcnow())

    assert store.list_turns("acme", "teams/web", session.id) == [ended, *turns[1:]]
    assert store.list_turns("acme", "teams/web", "ses_missing") == []


def test_end_turn_takes_index_docs(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # A store holding no index of its own (the cloud's, or SQLite's without search) ignores them
    session = agent_with_session()
    (turn,) = _turns(store, build, session, 1)
    doc = index_docs.doc(
        "evt_1.1",
        "turn 1, user: hello",
        tenant="acme",
        kind="event",
        created_at=utcnow(),
        scope="session",
        session_id=session.id,
        turn_sequence=1,
    )

    ended = store.end_turn(turn, TurnStatus.COMMITTED, utcnow(), TurnWrites(index_docs=[doc]))

    assert store.get_turn("acme", "teams/web", session.id, turn.id) == ended


# -- isolation and deletion --------------------------------------------------------------------


def test_history_is_kept_per_tenant(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    ours = agent_with_session("teams/web", "tenant-a")
    theirs = agent_with_session("teams/web", "tenant-b")
    (our_turn,) = _turns(store, build, ours, 1)
    (their_turn,) = _turns(store, build, theirs, 1)
    mine = build.event(our_turn, 1, text="ours")
    store.append_events("tenant-a", "teams/web", ours.id, [mine])
    theirs_event = build.event(their_turn, 1, text="theirs")
    store.append_events("tenant-b", "teams/web", theirs.id, [theirs_event])

    assert mine.id == theirs_event.id  # same turn id and sequence, so the same event id
    assert store.get_events("tenant-a", "teams/web", ours.id, [mine.id]) == [mine]
    assert store.get_events("tenant-b", "teams/web", theirs.id, [mine.id]) == [theirs_event]
    assert store.session_events("tenant-a", "teams/web", ours.id, 10, None) == [mine]
    assert store.turn_events("tenant-b", "teams/web", theirs.id, their_turn.id) == [theirs_event]
    assert store.get_events("tenant-c", "teams/web", ours.id, [mine.id]) == []
    assert store.list_turns("tenant-c", "teams/web", ours.id) == []
    # A turn of one tenant takes no events from another
    with pytest.raises(PreconditionFailed):
        store.append_events("tenant-c", "teams/web", ours.id, [build.event(our_turn, 2)])


def test_delete_agent_removes_its_history_and_no_one_elses(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session("teams/web")
    neighbour = agent_with_session("teams/web/releases")
    turns = _turns(store, build, session, 2)
    (their_turn,) = _turns(store, build, neighbour, 1)
    events = [build.event(turn, n) for turn in turns for n in (1, 2)]
    store.append_events("acme", "teams/web", session.id, events)
    theirs = [build.event(their_turn, 1)]
    store.append_events("acme", "teams/web/releases", neighbour.id, theirs)

    assert store.delete_agent("acme", "teams/web") is True

    assert store.session_events("acme", "teams/web", session.id, 10, None) == []
    assert store.get_events("acme", "teams/web", session.id, [e.id for e in events]) == []
    assert store.list_turns("acme", "teams/web", session.id) == []
    # Re-created with the same ids, it starts without history
    again = agent_with_session("teams/web")
    (turn,) = _turns(store, build, again, 1)
    assert store.turn_events("acme", "teams/web", again.id, turn.id) == []
    assert store.session_events("acme", "teams/web/releases", neighbour.id, 10, None) == theirs


# -- DynamoStore only: large events in S3, and DynamoDB's limits ---------------------------------


@pytest.fixture
def s3(aws: None) -> Any:
    client = boto3.client("s3", region_name=REGION)
    client.create_bucket(Bucket=BUCKET)
    return client


@pytest.fixture
def bucketed(s3: Any) -> Iterator[DynamoStore]:
    store = DynamoStore("agent-memory-contract", REGION, bucket=BUCKET)
    store.create_table()
    yield store
    store.close()


@pytest.fixture
def unbucketed(dynamo_store: DynamoStore) -> DynamoStore:
    return dynamo_store


def _objects(s3: Any, prefix: str = "history/") -> list[str]:
    found = s3.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
    return [str(each["Key"]) for each in found]


def _dynamo_session(store: DynamoStore, build: Build, agent_id: str = "teams/web") -> Session:
    agent, version = build.agent(agent_id)
    store.create_agent(agent, version)
    session = build.session(agent)
    store.create_session(session)
    return session


def _session_with_turn(store: DynamoStore, build: Build) -> tuple[Session, Turn]:
    """A session of teams/web, on the DynamoDB store, with its first turn begun."""
    session = _dynamo_session(store, build)
    (turn,) = _turns(store, build, session, 1)
    return session, turn


def test_a_large_event_round_trips_through_s3(bucketed: DynamoStore, s3: Any, build: Build) -> None:
    store = bucketed
    session, turn = _session_with_turn(store, build)
    large = build.event(turn, 1, text="word " * 100_000)  # 500,000 characters
    small = build.event(turn, 2)

    store.append_events("acme", "teams/web", session.id, [large, small])

    assert store.turn_events("acme", "teams/web", session.id, turn.id) == [large, small]
    assert store.get_events("acme", "teams/web", session.id, [large.id]) == [large]
    assert store.session_events("acme", "teams/web", session.id, 10, None) == [large, small]
    (key,) = _objects(s3)
    assert key.startswith(f"history/acme/teams%2Fweb/{session.id}/{large.id}.")
    head = s3.head_object(Bucket=BUCKET, Key=key)
    assert head["ServerSideEncryption"] == "AES256"
    item = store._items.event.get(
        f"T#acme#A#teams/web#S#{session.id}", f"EV#0000000001#0000000001#{large.id}"
    )
    assert item.doc is None and item.blob_key == key and item.blob_bucket == BUCKET


def test_without_a_bucket_a_large_event_is_refused_and_nothing_kept(
    unbucketed: DynamoStore, build: Build
) -> None:
    store = unbucketed
    session, turn = _session_with_turn(store, build)
    batch = [build.event(turn, 1), build.event(turn, 2, text="word " * 100_000)]

    with pytest.raises(PayloadTooLarge) as raised:
        store.append_events("acme", "teams/web", session.id, batch)

    assert raised.value.code == "event_too_large"
    assert store.turn_events("acme", "teams/web", session.id, turn.id) == []


def test_appending_a_large_event_again_keeps_the_first_and_its_object(
    bucketed: DynamoStore, s3: Any, build: Build
) -> None:
    store = bucketed
    session, turn = _session_with_turn(store, build)
    first = build.event(turn, 1, text="first " * 80_000)
    store.append_events("acme", "teams/web", session.id, [first])
    kept = _objects(s3)

    store.append_events(
        "acme", "teams/web", session.id, [build.event(turn, 1, text="second " * 80_000)]
    )

    assert store.get_events("acme", "teams/web", session.id, [first.id]) == [first]
    assert _objects(s3) == kept


def test_a_writer_that_loses_the_race_for_an_id_keeps_the_winners_event(
    bucketed: DynamoStore, s3: Any, build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a large event kept by one writer
    store = bucketed
    session, turn = _session_with_turn(store, build)
    winner = build.event(turn, 1, text="winner " * 80_000)
    store.append_events("acme", "teams/web", session.id, [winner])
    kept = _objects(s3)
    # When another writer read before the winner wrote (its first read finds nothing)
    real = store._kept_ids
    reads: list[list[str]] = []

    def stale_first(pk: str, ids: list[str]) -> set[str]:
        reads.append(ids)
        return set() if len(reads) == 1 else real(pk, ids)

    monkeypatch.setattr(store, "_kept_ids", stale_first)
    loser = build.event(turn, 1, text="loser " * 80_000)
    other = build.event(turn, 2)

    store.append_events("acme", "teams/web", session.id, [loser, other])

    # Then the winner's event stays, the loser's object is gone, and the rest is kept
    assert len(reads) == 2
    assert store.turn_events("acme", "teams/web", session.id, turn.id) == [winner, other]
    assert _objects(s3) == kept


def test_a_turn_missing_at_the_write_keeps_nothing_and_no_object(
    bucketed: DynamoStore, s3: Any, build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = bucketed
    session, turn = _session_with_turn(store, build)
    # The turn is checked first; make it vanish between that check and the transaction.
    monkeypatch.setattr(store, "_check_turns", lambda pk, events: None)
    ghost = build.turn(session, 2, "trn_ghost")

    with pytest.raises(PreconditionFailed):
        store.append_events(
            "acme", "teams/web", session.id, [build.event(ghost, 1, text="x " * 250_000)]
        )

    assert _objects(s3) == []
    assert store.session_events("acme", "teams/web", session.id, 10, None) == []


def test_an_event_at_another_turn_sequence_is_refused(
    unbucketed: DynamoStore, build: Build
) -> None:
    # Events of a turn are kept at its sequence, so turn_events reads one range of keys
    store = unbucketed
    session, turn = _session_with_turn(store, build)

    with pytest.raises(PreconditionFailed):
        store.append_events(
            "acme", "teams/web", session.id, [build.event(turn, 1, turn_sequence=7)]
        )

    assert store.session_events("acme", "teams/web", session.id, 10, None) == []


def test_events_are_keyed_as_documented(unbucketed: DynamoStore, build: Build) -> None:
    store = unbucketed
    session, turn = _session_with_turn(store, build)
    event = build.event(turn, 12)
    store.append_events("acme", "teams/web", session.id, [event])

    pk = f"T#acme#A#teams/web#S#{session.id}"
    found = {item.sk for item in store._items.item.query(pk)}
    assert found == {
        f"TURN#{turn.id}",
        f"EV#0000000001#0000000012#{event.id}",
        f"EVID#{event.id}",
    }


def test_a_batch_is_cut_into_transactions_dynamodb_takes(
    bucketed: DynamoStore, s3: Any, build: Build
) -> None:
    store = bucketed
    session, turn = _session_with_turn(store, build)
    calls: list[str] = []

    def record(model: Any, **_: Any) -> None:
        calls.append(model.name)

    # 15 events of about 300 KB (over 4 MB in all), and 60 small ones (over 100 actions)
    events = [build.event(turn, n, text="x" * 300_000) for n in range(1, 16)]
    events += [build.event(turn, n, text=f"{n}") for n in range(16, 76)]
    hooks = store.connection.client.meta.events
    hooks.register("before-call.dynamodb", record)
    try:
        store.append_events("acme", "teams/web", session.id, events)
    finally:
        hooks.unregister("before-call.dynamodb", record)

    # 13 large ones fill 4 MB; then 2 large and 47 small fill 100 actions; then the other 13
    assert calls.count("TransactWriteItems") == 3
    assert store.turn_events("acme", "teams/web", session.id, turn.id) == events
    assert _objects(s3) == []  # 300 KB each fits an item


def test_delete_agent_removes_its_objects_and_no_one_elses(
    bucketed: DynamoStore, s3: Any, build: Build
) -> None:
    store = bucketed
    ours = _dynamo_session(store, build, "teams/web")
    theirs = _dynamo_session(store, build, "teams/web/releases")
    (our_turn,) = _turns(store, build, ours, 1)
    (their_turn,) = _turns(store, build, theirs, 1)
    store.append_events(
        "acme",
        "teams/web",
        ours.id,
        [build.event(our_turn, n, text="o " * 250_000) for n in (1, 2)],
    )
    their_event = build.event(their_turn, 1, text="t " * 250_000)
    store.append_events("acme", "teams/web/releases", theirs.id, [their_event])
    # An object no item points at (a write that crashed before its transaction)
    s3.put_object(Bucket=BUCKET, Key=f"history/acme/teams%2Fweb/{ours.id}/evt_x.0.json", Body=b"{}")
    assert len(_objects(s3)) == 4

    assert store.delete_agent("acme", "teams/web") is True

    assert _objects(s3, "history/acme/teams%2Fweb/") == []
    assert len(_objects(s3)) == 1
    got = store.get_events("acme", "teams/web/releases", theirs.id, [their_event.id])
    assert got == [their_event]
