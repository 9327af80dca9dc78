"""Contract of the ExtractionStore port on SqliteStore and DynamoStore: a committed turn keeps its
review, a review's records and its end are one write that happens once, and the session's
reviewed_through only moves forward."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from agent_memory.domain.models import (
    Extraction,
    ExtractionStatus,
    Session,
    Turn,
    TurnStatus,
    utcnow,
)
from agent_memory.domain.ports import PreconditionFailed, Store

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
