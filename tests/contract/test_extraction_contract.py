"""Contract of the ExtractionStore port on SqliteStore and DynamoStore: a committed turn keeps its
review, a review's records and its end are one write that happens once, and the session's
reviewed_through only moves forward."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from agent_memory.domain.history.keys import EventKeys
from agent_memory.domain.history.models import event_id
from agent_memory.domain.kernel.errors import PreconditionFailed
from agent_memory.domain.kernel.models import (
    Extraction,
    ExtractionStatus,
    Session,
    Turn,
    TurnStatus,
    utcnow,
)
from agent_memory.domain.store import Store

if TYPE_CHECKING:
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]
AGENT = "teams/web"
UNFINISHED = (ExtractionStatus.QUEUED, ExtractionStatus.RUNNING, ExtractionStatus.FAILED)


def queued(through: int, from_turn: int = 0) -> Extraction:
    return Extraction(
        status=ExtractionStatus.QUEUED,
        from_turn=from_turn,
        through=through,
        messages=2,
        queued_at=utcnow(),
    )


def committed_with_review(store: Store, build: Build, session: Session, sequence: int) -> Turn:
    turn = build.turn(session, sequence, f"trn_{sequence:04d}")
    store.begin_turn(turn)
    review = queued(sequence)
    return store.end_turn(
        turn.model_copy(update={"extraction": review}), TurnStatus.COMMITTED, utcnow()
    )


def test_a_commit_keeps_the_review_it_queued(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    ended = committed_with_review(store, build, session, 1)
    stored = store.get_turn("acme", AGENT, session.id, ended.id)
    assert stored is not None and stored.extraction == ended.extraction
    assert stored.extraction is not None and stored.extraction.status is ExtractionStatus.QUEUED
    # A turn that queued nothing has no review.
    plain = build.turn(session, 2, "trn_0002")
    store.begin_turn(plain)
    store.end_turn(plain, TurnStatus.COMMITTED, utcnow())
    assert store.get_turn("acme", AGENT, session.id, plain.id).extraction is None  # type: ignore[union-attr]


def test_update_extraction_holds_only_in_the_expected_states(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    turn = committed_with_review(store, build, session, 1)
    assert turn.extraction is not None
    running = turn.extraction.model_copy(update={"status": ExtractionStatus.RUNNING, "attempts": 1})
    store.update_extraction(turn, running, (ExtractionStatus.QUEUED,))
    # A second runner expecting it queued loses, and changes nothing.
    with pytest.raises(PreconditionFailed):
        store.update_extraction(turn, running, (ExtractionStatus.QUEUED,))
    stored = store.get_turn("acme", AGENT, session.id, turn.id)
    assert stored is not None and stored.extraction == running
    # A turn without a review cannot be given one this way.
    plain = build.turn(session, 2, "trn_0002")
    store.begin_turn(plain)
    with pytest.raises(PreconditionFailed):
        store.update_extraction(plain, running, UNFINISHED)


def test_finishing_a_review_applies_its_records_once(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    turn = committed_with_review(store, build, session, 1)
    assert turn.extraction is not None
    done = turn.extraction.model_copy(
        update={"status": ExtractionStatus.DONE, "added": 1, "ended_at": utcnow()}
    )
    record = build.record("rec_01")
    store.finish_extraction(turn, done, [build.create(record)])

    assert store.get_records("acme", AGENT, ["rec_01"]) == [record]
    stored = store.get_turn("acme", AGENT, session.id, turn.id)
    assert stored is not None and stored.extraction == done
    assert store.get_session("acme", AGENT, session.id).reviewed_through == 1  # type: ignore[union-attr]

    # A re-run (a redelivered task) is refused and writes nothing more.
    again = build.record("rec_02")
    with pytest.raises(PreconditionFailed):
        store.finish_extraction(turn, done, [build.create(again)])
    assert store.get_records("acme", AGENT, ["rec_02"]) == []


def test_a_failed_review_can_still_finish_and_a_stale_record_applies_nothing(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    turn = committed_with_review(store, build, session, 1)
    assert turn.extraction is not None
    failed = turn.extraction.model_copy(update={"status": ExtractionStatus.FAILED, "error": "x"})
    store.update_extraction(turn, failed, UNFINISHED)
    existing = build.record("rec_01")
    store.write_records("acme", AGENT, [build.create(existing)])
    done = turn.extraction.model_copy(update={"status": ExtractionStatus.DONE})
    # Creating a record that exists is a stale write: nothing of the review is applied.
    with pytest.raises(PreconditionFailed):
        store.finish_extraction(turn, done, [build.create(existing)])
    stored = store.get_turn("acme", AGENT, session.id, turn.id)
    assert stored is not None and stored.extraction == failed
    assert store.get_session("acme", AGENT, session.id).reviewed_through == 0  # type: ignore[union-attr]
    # Retried with what holds, it finishes.
    store.finish_extraction(turn, done, [build.create(build.record("rec_02"))])
    assert [r.id for r in store.get_records("acme", AGENT, ["rec_02"])] == ["rec_02"]


def test_reviewed_through_only_moves_forward(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    first = committed_with_review(store, build, session, 1)
    second = committed_with_review(store, build, session, 2)
    assert first.extraction is not None and second.extraction is not None
    store.finish_extraction(
        second, second.extraction.model_copy(update={"status": ExtractionStatus.DONE}), []
    )
    # The earlier review finishing later leaves the mark where the later one put it.
    store.finish_extraction(
        first, first.extraction.model_copy(update={"status": ExtractionStatus.DONE}), []
    )
    assert store.get_session("acme", AGENT, session.id).reviewed_through == 2  # type: ignore[union-attr]
    stored = store.get_turn("acme", AGENT, session.id, first.id)
    assert stored is not None and stored.extraction is not None
    assert stored.extraction.status is ExtractionStatus.DONE


# -- fact keys (#16 item 6): the facts a review proposed from the messages it read ------------


def facts(turn: Turn, sequence: int, *said: str) -> EventKeys:
    return EventKeys(
        session_id=turn.session_id,
        turn_id=turn.id,
        turn_sequence=turn.sequence,
        event_id=event_id(turn.session_id, turn.id, sequence),
        time=utcnow(),
        keys=said,
    )


def done(turn: Turn) -> Extraction:
    assert turn.extraction is not None
    return turn.extraction.model_copy(
        update={"status": ExtractionStatus.DONE, "ended_at": utcnow()}
    )


def two_reviewed_turns(
    store: Store, build: Build, agent_with_session: MakeSession
) -> tuple[Session, Turn, Turn]:
    """A session of two committed turns, each with its review queued."""
    session = agent_with_session()
    first = committed_with_review(store, build, session, 1)
    return session, first, committed_with_review(store, build, session, 2)


def test_a_review_keeps_the_keys_of_each_turn_it_read(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session, first, second = two_reviewed_turns(store, build, agent_with_session)
    third = committed_with_review(store, build, session, 3)
    pet, job = facts(first, 1, "User adopted a greyhound named Pixel"), facts(first, 2, "A", "B")
    own = facts(second, 1, "The user works at a bakery")
    # The second turn's review read the first two turns and proposed facts from three events
    store.finish_extraction(second, done(second), [], [first.id, second.id], [pet, job, own])
    # Each turn keeps its own events' keys, in the order proposed
    assert store.event_keys("acme", AGENT, session.id, first.id) == [pet, job]
    assert store.event_keys("acme", AGENT, session.id, second.id) == [own]
    # A turn no review drew a fact from has none; so has a turn that is not there
    assert store.event_keys("acme", AGENT, session.id, third.id) == []
    assert store.event_keys("acme", AGENT, session.id, "trn_9999") == []
    assert store.event_keys("acme", AGENT, "ses_none", first.id) == []


def test_a_finish_refused_because_a_turn_was_read_meanwhile_keeps_no_keys(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session, first, second = two_reviewed_turns(store, build, agent_with_session)
    # The second turn's review read the first turn first, and proposed nothing from it
    store.finish_extraction(second, done(second), [], [first.id, second.id])
    # The first turn's own review, which read it too, is refused: its keys are not kept
    with pytest.raises(PreconditionFailed):
        store.finish_extraction(first, done(first), [], [first.id], [facts(first, 1, "late")])
    assert store.event_keys("acme", AGENT, session.id, first.id) == []
    # Nor are a re-run's (a redelivered task of a review that finished)
    with pytest.raises(PreconditionFailed):
        store.finish_extraction(second, done(second), [], [second.id], [facts(second, 1, "x")])
    assert store.event_keys("acme", AGENT, session.id, second.id) == []


def test_keys_kept_by_a_review_are_not_replaced_by_a_later_one(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # A turn is read by one finished review only (its `reviewed` flag): a later review that read
    # it again is refused whole, so the keys the first one kept stay.
    session, first, second = two_reviewed_turns(store, build, agent_with_session)
    kept = facts(first, 1, "User adopted a greyhound named Pixel")
    store.finish_extraction(first, done(first), [], [first.id], [kept])
    with pytest.raises(PreconditionFailed):
        store.finish_extraction(
            second, done(second), [], [first.id, second.id], [facts(first, 1, "other")]
        )
    assert store.event_keys("acme", AGENT, session.id, first.id) == [kept]
    assert store.get_turn("acme", AGENT, session.id, second.id).extraction.status in UNFINISHED  # type: ignore[union-attr]


def test_deleting_the_agent_leaves_no_keys(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    turn = committed_with_review(store, build, session, 1)
    store.finish_extraction(turn, done(turn), [], [turn.id], [facts(turn, 1, "a fact")])
    assert store.event_keys("acme", AGENT, session.id, turn.id) != []
    assert store.delete_agent("acme", AGENT) is True
    assert store.event_keys("acme", AGENT, session.id, turn.id) == []


def test_keys_of_a_turn_the_review_did_not_read_are_not_kept(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Keys go only on the turns a review flags read in its transaction: facts naming another
    # turn's events are left out, on both stores alike, and the rest of the review applies.
    session, first, second = two_reviewed_turns(store, build, agent_with_session)
    own = facts(second, 1, "The user works at a bakery")
    store.finish_extraction(second, done(second), [], [second.id], [facts(first, 1, "x"), own])
    assert store.event_keys("acme", AGENT, session.id, first.id) == []
    assert store.event_keys("acme", AGENT, session.id, second.id) == [own]
