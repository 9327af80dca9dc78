"""The stream indexer and events kept before ids included the session (cloud shape).

Such an event's id repeats across sessions (its turn id and sequence made it), so one
session's documents took the place of another's in the index. Replayed by `agent-memory
reindex` (or met again on the stream), it is indexed under its id and its session, and what
its id alone named is removed; removed, both go. The stream records are built from the table's
real items as in test_indexer."""

from __future__ import annotations

import dataclasses

import pytest
from test_indexer import T0, MemoryIndex, batch, change

from agent_memory.adapters.dynamodb.history_items import EventItem
from agent_memory.adapters.dynamodb.reindex import _item_key
from agent_memory.adapters.dynamodb.stream_indexer import StreamIndexer
from agent_memory.adapters.dynamodb.stream_indexer import event_docs as stream_event_docs
from agent_memory.domain.history.models import (
    HistoryEvent,
    event_id,
    event_of,
    index_id,
    older_event_id,
    part_id,
)
from agent_memory.domain.search.index import IndexDoc, StoredDoc

pytestmark = pytest.mark.integration

OLDER = older_event_id("t1", 1)


def said(session_id: str, text: str, id: str = OLDER) -> HistoryEvent:
    return HistoryEvent(
        tenant="t1",
        agent_id="teams/web",
        session_id=session_id,
        turn_id="t1",
        turn_sequence=1,
        id=id,
        sequence=1,
        role="user",
        text=text,
        time=T0,
        searchable=True,
    )


def image(event: HistoryEvent, blob: bool = False) -> dict:
    item = EventItem.of("t1", "teams/web", event.session_id, event).serialize()
    if blob:
        item.pop("doc", None)
        item["blob_bucket"] = {"S": "history-bucket"}
        item["blob_key"] = {"S": f"history/{event.session_id}/{event.id}.json"}
    return item


def older_docs(event: HistoryEvent) -> list[IndexDoc]:
    """The event's documents as an older version named them: by its id alone."""
    return [
        dataclasses.replace(doc, id=part_id(event.id, n))
        for n, doc in enumerate(stream_event_docs(event), start=1)
    ]


def event_docs(index: MemoryIndex) -> list[tuple[str, str | None]]:
    return sorted((k[3], d.session_id) for k, d in index.docs.items() if k[2] == "event")


def test_the_name_an_event_is_indexed_by():
    # An event kept with an id made from its session is indexed by that id
    current = said("monday", "hi", id=event_id("monday", "t1", 1))
    assert index_id(current) == current.id
    # One kept with the older form of id is named with its session too
    assert index_id(said("monday", "hi")) == f"{OLDER}@monday"
    # Any other id (an import's, a test's) is its own name
    assert index_id(said("monday", "hi", id="evt_1")) == "evt_1"
    # And a document's name leads back to the event's id, whichever part it is
    assert event_of(f"{OLDER}@monday.2") == OLDER
    assert event_of(f"{OLDER}@monday.k") == OLDER
    assert event_of("evt_1.1") == "evt_1"


def test_a_replayed_older_event_replaces_the_document_its_id_alone_named():
    index = MemoryIndex()
    indexer = StreamIndexer(index, None)
    monday, tuesday = said("monday", "my dog is Biscuit"), said("tuesday", "my cat is Pepper")
    # Given the index an older version left: Tuesday's document under the shared id alone
    index.upsert(older_docs(tuesday))
    assert event_docs(index) == [(f"{OLDER}.1", "tuesday")]
    # When both events are replayed (a reindex reads every item of the table)
    indexer.process(
        batch(change("INSERT", new=image(monday)), change("INSERT", new=image(tuesday)))
    )
    # Then each is found under its own name, and the shared document is gone
    assert event_docs(index) == [(f"{OLDER}@monday.1", "monday"), (f"{OLDER}@tuesday.1", "tuesday")]
    assert "Biscuit" in index.docs[("t1", "teams/web", "event", f"{OLDER}@monday.1")].text


@pytest.mark.parametrize("blob", [False, True], ids=["inline", "in-s3"])
def test_a_removed_older_event_takes_both_names_with_it(blob):
    index = MemoryIndex()
    indexer = StreamIndexer(index, None)
    monday = said("monday", "my dog is Biscuit")
    indexer.process(batch(change("INSERT", new=image(monday))))
    index.upsert(older_docs(monday))
    assert len(event_docs(index)) == 2
    # When its item is removed (held inline, or in S3 and read by the count of its parts)
    indexer.process(batch(change("REMOVE", old=image(monday, blob=blob))))
    # Then neither name is left
    assert event_docs(index) == []


def test_the_sweep_finds_the_item_of_a_document_named_with_its_session():
    doc = StoredDoc("t1", "teams/web", "event", f"{OLDER}@monday.1", session_id="monday")
    pk, sk = _item_key(doc)
    bare = _item_key(StoredDoc("t1", "teams/web", "event", f"{OLDER}.1", session_id="monday"))
    assert (pk, sk) == bare
