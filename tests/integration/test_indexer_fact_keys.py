"""The stream indexer's key documents (#16 item 6): a turn item's fact keys, as DynamoStore keeps
them (TurnItem.fact_keys, fact_keys_at), become its events' `<event>.k` documents when they
change, and only then; the stream records are built from the table's real items as in
test_indexer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from test_indexer import FakeEmbedder, MemoryIndex, batch, change

from agent_memory.adapters.dynamodb.stream_indexer import StreamIndexer
from agent_memory.adapters.dynamodb.turn_item import TurnItem
from agent_memory.domain.history.keys import EventKeys, keys_json
from agent_memory.domain.kernel.models import Extraction, ExtractionStatus, Turn, TurnStatus

pytestmark = pytest.mark.integration

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
REVIEWED = T0 + timedelta(minutes=5)


def facts(event_id: str, *said: str) -> EventKeys:
    return EventKeys(
        session_id="ses_1",
        turn_id="trn_1",
        turn_sequence=3,
        event_id=event_id,
        time=T0,
        keys=said,
    )


def turn_image(
    *kept: EventKeys, at: datetime = REVIEWED, status: ExtractionStatus = ExtractionStatus.DONE
) -> dict:
    """The turn item as DynamoStore writes it, holding `kept` as its events' fact keys."""
    turn = Turn(
        tenant="t1",
        agent_id="teams/web",
        session_id="ses_1",
        id="trn_1",
        sequence=3,
        status=TurnStatus.COMMITTED,
        started_by="app",
        manifest_version=1,
        created_at=T0,
        ended_at=T0,
        extraction=Extraction(status=status, from_turn=2, through=3, messages=2, queued_at=T0),
        reviewed=bool(kept),
    )
    item = TurnItem.of(turn)
    if kept:
        item.fact_keys = keys_json(kept)
        item.fact_keys_at = at
    return item.serialize()


def key_docs(index: MemoryIndex) -> dict[str, str]:
    return {k[3]: doc.text for k, doc in index.docs.items() if k[3].endswith(".k")}


def wired() -> tuple[StreamIndexer, MemoryIndex, FakeEmbedder]:
    """The indexer on an in-memory index and a fake embedder (test_indexer's)."""
    index, embedder = MemoryIndex(), FakeEmbedder()
    return StreamIndexer(index, embedder), index, embedder


def test_a_review_finishing_with_keys_indexes_each_events_key_document():
    _, index, embedder = wired()
    # Given a turn item whose review just kept the facts it proposed from two of its events
    kept = []
    indexer = StreamIndexer(index, embedder, add_usage=lambda t, a, rows: kept.append(rows))
    pet, job = facts("evt_1", "User adopted a greyhound named Pixel"), facts("evt_2", "A", "B")
    reviewed = change("MODIFY", new=turn_image(pet, job), old=turn_image())
    # When the indexer sees the change
    response = indexer.process(batch(reviewed))
    # Then each event has its key document: its facts a line, dated as the event, versioned by
    # the review, embedded as a whole and billed to the turn
    assert response == {"batchItemFailures": []}
    assert key_docs(index) == {"evt_1.k": "User adopted a greyhound named Pixel", "evt_2.k": "A\nB"}
    doc = index.get("evt_1.k", kind="event")
    assert (doc.session_id, doc.scope, doc.turn_sequence, doc.created_at) == (
        "ses_1",
        "session",
        3,
        T0,
    )
    assert doc.version == int(REVIEWED.timestamp() * 1_000_000)
    assert doc.vector is not None and doc.model_id == "fake-embed-v1"
    assert sorted(embedder.texts) == ["A\nB", "User adopted a greyhound named Pixel"]
    [rows] = kept
    assert [(r.purpose, r.session_id, r.turn_id) for r in rows] == [("embed", "ses_1", "trn_1")] * 2


def test_a_later_change_of_the_turn_that_keeps_its_keys_embeds_nothing():
    indexer, index, embedder = wired()
    pet = facts("evt_1", "User adopted a greyhound named Pixel")
    indexer.process(batch(change("MODIFY", new=turn_image(pet), old=turn_image())))
    embedder.texts.clear()
    writes = index.writes
    # The review's status moves on (e.g. a retried step), the keys stay as they were
    later = turn_image(pet, status=ExtractionStatus.FAILED)
    response = indexer.process(batch(change("MODIFY", new=later, old=turn_image(pet))))
    assert response == {"batchItemFailures": []}
    assert embedder.texts == [] and index.writes == writes and index.requests[-1] == "upsert"
    assert key_docs(index) == {"evt_1.k": "User adopted a greyhound named Pixel"}


def test_keys_a_later_review_changes_replace_and_keys_it_drops_are_deleted():
    indexer, index, embedder = wired()
    same, old, dropped = facts("evt_1", "same"), facts("evt_2", "old"), facts("evt_3", "gone")
    first = turn_image(same, old, dropped)
    indexer.process(batch(change("MODIFY", new=first, old=turn_image())))
    embedder.texts.clear()
    # A later review: evt_1's keys as they were, evt_2's changed, evt_3 without any
    second = turn_image(same, facts("evt_2", "new"), at=REVIEWED + timedelta(hours=1))
    response = indexer.process(batch(change("MODIFY", new=second, old=first)))
    assert response == {"batchItemFailures": []}
    assert key_docs(index) == {"evt_1.k": "same", "evt_2.k": "new"}
    assert embedder.texts == ["new"]  # only the document that changed is embedded again
    assert index.get("evt_2.k", kind="event").version > index.get("evt_1.k", kind="event").version
    # Replayed afterwards, the first review's keys do not overwrite the second's
    indexer.process(batch(change("MODIFY", new=first, old=turn_image())))
    assert index.get("evt_2.k", kind="event").text == "new"


def test_a_removed_turn_deletes_its_key_documents():
    indexer, index, _ = wired()
    image = turn_image(facts("evt_1", "a fact"), facts("evt_2", "another"))
    indexer.process(batch(change("MODIFY", new=image, old=turn_image())))
    other = turn_image(facts("evt_9", "kept"))
    other["sk"] = {"S": "TURN#trn_9"}
    indexer.process(batch(change("INSERT", new=other)))
    # The agent's deletion removes the turn's item
    response = indexer.process(batch(change("REMOVE", old=image)))
    assert response == {"batchItemFailures": []}
    assert key_docs(index) == {"evt_9.k": "kept"}
    # A turn that never had keys removes nothing
    assert indexer.process(batch(change("REMOVE", old=turn_image()))) == {"batchItemFailures": []}
    assert key_docs(index) == {"evt_9.k": "kept"}


def finished_then_touched() -> tuple[dict, dict]:
    """A review finishing with keys for the turn's evt_1, then a change that keeps them."""
    pet = facts("evt_1", "User adopted a greyhound named Pixel")
    finished = change("MODIFY", new=turn_image(pet), old=turn_image())
    touched = change(
        "MODIFY", new=turn_image(pet, status=ExtractionStatus.FAILED), old=turn_image(pet)
    )
    return finished, touched


def test_keys_written_then_left_alone_within_one_batch_are_indexed_once():
    indexer, index, embedder = wired()
    # The review's finish and a later change of the same turn arrive in one batch: the last
    # change's old image already holds the keys, which the batch must still index.
    finished, touched = finished_then_touched()
    response = indexer.process(batch(finished, touched))
    assert response == {"batchItemFailures": []}
    assert key_docs(index) == {"evt_1.k": "User adopted a greyhound named Pixel"}
    assert embedder.texts == ["User adopted a greyhound named Pixel"]


def test_keys_changed_twice_within_one_batch_end_as_the_last_with_the_first_ones_gone():
    indexer, index, embedder = wired()
    first = turn_image(facts("evt_1", "one"), facts("evt_2", "two"))
    indexer.process(batch(change("MODIFY", new=first, old=turn_image())))
    embedder.texts.clear()
    second = turn_image(facts("evt_1", "one"), at=REVIEWED + timedelta(hours=1))
    third = turn_image(facts("evt_3", "three"), at=REVIEWED + timedelta(hours=2))
    response = indexer.process(
        batch(change("MODIFY", new=second, old=first), change("MODIFY", new=third, old=second))
    )
    assert response == {"batchItemFailures": []}
    # evt_2's document went with the second review, evt_1's with the third
    assert key_docs(index) == {"evt_3.k": "three"}
    assert embedder.texts == ["three"]


def test_a_failed_key_write_is_reported_at_the_turns_first_change_of_the_batch():
    indexer, index, _ = wired()
    # Lambda retries from the lowest failed sequence number: from the turn's first change, so
    # the retry sees the keys change again rather than a change that keeps them.
    finished, touched = finished_then_touched()
    index.refused.add("evt_1.k")
    response = indexer.process(batch(finished, touched))
    assert response == {
        "batchItemFailures": [{"itemIdentifier": finished["dynamodb"]["SequenceNumber"]}]
    }
    # The retry, from that change on, indexes the keys
    index.refused.clear()
    assert indexer.process(batch(finished, touched)) == {"batchItemFailures": []}
    assert key_docs(index) == {"evt_1.k": "User adopted a greyhound named Pixel"}


def test_without_an_embedder_key_documents_are_indexed_by_words_only():
    index = MemoryIndex()
    indexer = StreamIndexer(index, None)
    image = turn_image(facts("evt_1", "User adopted a greyhound named Pixel"))
    indexer.process(batch(change("MODIFY", new=image, old=turn_image())))
    doc = index.get("evt_1.k", kind="event")
    assert (doc.text, doc.vector) == ("User adopted a greyhound named Pixel", None)
