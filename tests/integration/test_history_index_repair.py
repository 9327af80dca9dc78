"""History kept before event ids included the session, indexed again (embedded shape).

Event ids were once made from the turn and the sequence alone, and turn ids repeat across
sessions (each session's first turn may be `t1`): two sessions' events shared an id, and with it
their search documents, so the later one's replaced the earlier one's. Migration 25 lists the
committed turns holding such events; `serve` (and `reindex`) writes their documents again under
names that include the session (history.models.index_id) and removes what the ids alone named.
The store here is made as an older version left it: events with the older ids, one document
where two belonged, and the migration not yet applied."""

from __future__ import annotations

import dataclasses

import pytest

from agent_memory.domain.history.append import history_event
from agent_memory.domain.history.models import EventIn, older_event_id, part_id
from agent_memory.local.reindex import reindex, repair_index

pytestmark = pytest.mark.integration

A = "/v1/agents/support/bot"
SAID = {"monday": "my dog is called Biscuit", "tuesday": "my cat is called Pepper"}


def event_docs(store):
    rows = store.db.read().execute(
        "SELECT doc_id, session_id FROM search_docs WHERE kind = 'event' ORDER BY doc_id"
    )
    return [(r[0], r[1]) for r in rows]


def pending(store):
    rows = store.db.read().execute("SELECT session_id, turn_id FROM index_repairs")
    return sorted((r[0], r[1]) for r in rows)


def found(api, query):
    return {e["session"] for e in api.ok("GET", f"{A}/-/history", query=query)["events"]}


def kept_as_before(api, services, store):
    """Two sessions, each with a committed turn `t1` whose message has the older form of id,
    indexed as an older version indexed it: under that id alone, so Tuesday's document took the
    place of Monday's. Then the store is as it was before migration 25."""
    history = {"index": "messages", "search": "agent"}
    manifest = {"harness": {"memory": {"enabled": True}, "history": history}}
    api.ok("PUT", A, manifest, expect=201)
    legacy = older_event_id("t1", 1)
    for sid, text in SAID.items():
        api.ok("POST", f"{A}/-/sessions", {"id": sid}, expect=201)
        api.ok("POST", f"{A}/-/sessions/{sid}/turns", {"id": "t1"}, expect=201)
        turn = store.get_turn("acme", "support/bot", sid, "t1")
        event = history_event(turn, EventIn(role="user", text=text, sequence=1), 1, True)
        assert store.append_events(
            "acme", "support/bot", sid, [event.model_copy(update={"id": legacy})]
        )
        api.ok("POST", f"{A}/-/sessions/{sid}/turns/t1/commit")
        turn = store.get_turn("acme", "support/bot", sid, "t1")
        docs = services.history.docs_for_commit(turn)
        store.index.delete("acme", "support/bot", "event", [d.id for d in docs])
        store.index.upsert([dataclasses.replace(d, id=part_id(legacy, 1)) for d in docs])
    services.drain_vectors()
    with store.db.write() as conn:
        conn.execute("DELETE FROM schema_migrations WHERE version = 25")
        conn.execute("DROP TABLE index_repairs")
    return legacy


def test_a_session_whose_events_another_replaced_in_search_is_found_again(api, services, embedded):
    store = embedded
    legacy = kept_as_before(api, services, store)
    # Given the older index: one document for both messages, Tuesday's, and Monday's not found
    assert event_docs(store) == [(f"{legacy}.1", "tuesday")]
    assert found(api, "Biscuit") == set()
    # When the migration runs, then it lists both committed turns
    store.db.migrate()
    assert pending(store) == [("monday", "t1"), ("tuesday", "t1")]
    # And the repair serve runs at start writes each session's event under its own name
    assert repair_index(services) == 2
    services.drain_vectors()
    assert event_docs(store) == [
        (f"{legacy}@monday.1", "monday"),
        (f"{legacy}@tuesday.1", "tuesday"),
    ]
    assert found(api, "Biscuit") == {"monday"}
    assert found(api, "Pepper") == {"tuesday"}
    # Each result is the stored event, under its own id (ids are the API's, never renamed)
    hit = api.ok("GET", f"{A}/-/history", query="Biscuit")["events"][0]
    assert hit["id"] == legacy and hit["session"] == "monday"
    # And the list is empty: a second start repairs nothing
    assert pending(store) == []
    assert repair_index(services) == 0


def test_a_repair_stopped_part_way_resumes_and_reindex_does_it_too(api, services, embedded):
    store = embedded
    legacy = kept_as_before(api, services, store)
    store.db.migrate()
    # Given a repair that stopped after Monday's turn (Monday taken off the list, Tuesday not)
    with store.db.write() as conn:
        conn.execute("DELETE FROM index_repairs WHERE session_id = 'monday'")
    # When `agent-memory reindex` runs (nothing is stale, so it rebuilds nothing else)
    reindex(services)
    # Then Tuesday's turn was written again, Monday's older document is gone all the same
    assert (f"{legacy}@tuesday.1", "tuesday") in event_docs(store)
    assert (f"{legacy}.1", "tuesday") not in event_docs(store)
    assert pending(store) == []
    # And `reindex --all` names Monday's event with its session too
    reindex(services, everything=True)
    assert event_docs(store) == [
        (f"{legacy}@monday.1", "monday"),
        (f"{legacy}@tuesday.1", "tuesday"),
    ]
    assert found(api, "Biscuit") == {"monday"}


def test_a_store_without_older_ids_lists_nothing_and_keeps_its_documents(api, services, embedded):
    store = embedded
    history = {"index": "messages", "search": "agent"}
    api.ok("PUT", A, {"harness": {"memory": {"enabled": True}, "history": history}}, expect=201)
    for sid, text in SAID.items():
        api.ok("POST", f"{A}/-/sessions", {"id": sid}, expect=201)
        api.ok("POST", f"{A}/-/sessions/{sid}/turns", {"id": "t1"}, expect=201)
        path = f"{A}/-/sessions/{sid}/turns/t1"
        api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": text}]})
        api.ok("POST", f"{path}/commit")
    before = event_docs(store)
    with store.db.write() as conn:
        conn.execute("DELETE FROM schema_migrations WHERE version = 25")
        conn.execute("DROP TABLE index_repairs")
    store.db.migrate()
    assert pending(store) == []
    assert repair_index(services) == 0
    assert event_docs(store) == before
    assert all("@" not in doc for doc, _ in before)
    assert found(api, "Biscuit") == {"monday"}
