"""A history event's meaning is embedded with the message said before it (its words are indexed
as said), in the embedded shape's commit; never with a rolled-back or a preview turn's words."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings
from apiclient import ApiClient, drained

sys.path.insert(0, str(Path(__file__).parent))
from test_indexer import FakeEmbedder  # noqa: E402

A = "/v1/agents/teams/web/releases"


@pytest.fixture
def setup(store, tmp_path):
    embedder = FakeEmbedder()
    services = build_services(Settings(data_dir=tmp_path), store=store, embedder=embedder)
    api = ApiClient(drained(Api(services).handle, services))
    api.ok("PUT", A, {"harness": {"history": {"index": "messages"}}}, expect=201)
    session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    return api, session, embedder


def said(api, session, *texts, end="commit", **begin):
    t = api.ok("POST", f"{A}/-/sessions/{session}/turns", begin, expect=201)
    path = f"{A}/-/sessions/{session}/turns/{t['id']}"
    events = [{"role": role, "text": text} for role, text in texts]
    api.ok("POST", f"{path}/events", {"events": events})
    api.ok("POST", f"{path}/{end}")


def test_each_event_is_embedded_after_the_message_before_it(setup):
    api, session, embedder = setup
    said(api, session, ("user", "When do we ship?"), ("assistant", "On Tuesdays."))
    said(api, session, ("user", "Why then?"))
    if not embedder.texts:
        pytest.skip("this store indexes from the stream")
    # Meaning leaves out the turn heading; it takes the two messages before (words: below).
    assert embedder.texts == [
        "When do we ship?",
        "On Tuesdays.\n(after: When do we ship?)",
        "Why then?\n(after: When do we ship? / On Tuesdays.)",
    ]


def test_never_after_a_rolled_back_or_a_preview_turns_words(setup, store):
    from agent_memory.domain.search.index import IndexFilter

    api, session, embedder = setup
    said(api, session, ("user", "The codename is pineapple."))
    said(api, session, ("user", "Forget that: the codename is mango."), end="rollback")
    said(api, session, ("user", "A preview thought."), preview=True)
    said(api, session, ("user", "What is the codename?"))
    if not embedder.texts:
        pytest.skip("this store indexes from the stream")
    assert embedder.texts[-1] == "What is the codename?\n(after: The codename is pineapple.)"
    # Nor in the words said before an event: no live event is found by them.
    where = IndexFilter(kind="event", session_id=session, include_agent=False)
    for word in ("mango", "preview"):
        assert store.index.lexical("acme", "teams/web/releases", word, where, 10) == []


def test_the_message_before_is_read_the_same_way_from_either_store(setup, store):
    # What the stream indexer asks the DynamoDB store, and the embedded commit the SQLite one.
    from agent_memory.domain.history.service import said_before

    api, session, _ = setup
    said(api, session, ("user", "The codename is pineapple."))
    said(api, session, ("user", "Forget that: mango."), end="rollback")
    said(api, session, ("user", "What is it?"), ("assistant", "Pineapple."))
    events = store.session_events("acme", "teams/web/releases", session, 100, None)
    last_turn = [e for e in events if e.turn_sequence == 3]
    assert [said_before(store, e) for e in last_turn] == [
        ["The codename is pineapple."],
        ["The codename is pineapple.", "What is it?"],
    ]
    assert said_before(store, last_turn[1], count=1) == ["What is it?"]
    first = [e for e in events if e.turn_sequence == 1][0]
    assert said_before(store, first) == []
    # A turn's first event, read without its own turn (as the commit reads it): the same.
    for event in (first, last_turn[0]):
        assert said_before(store, event, first_of_turn=True) == said_before(store, event)


def test_the_words_said_before_an_event_find_it_below_the_event_that_said_them(setup, store):
    from agent_memory.domain.search.index import IndexFilter

    api, session, embedder = setup
    said(
        api, session, ("user", "How long have you two been married?"), ("assistant", "Five years!")
    )
    said(api, session, ("user", "Lunch?"))
    said(api, session, ("user", "Tea?"))
    if not embedder.texts:
        pytest.skip("this store indexes from the stream")
    where = IndexFilter(kind="event", session_id=session, include_agent=False)
    hits = store.index.lexical("acme", "teams/web/releases", "married", where, 10)
    texts = {
        e.id: e.text for e in store.session_events("acme", "teams/web/releases", session, 100, None)
    }
    found = [texts[h.id.rpartition(".")[0]] for h in hits]
    # The answer is found by the question it follows, and so is the message after it (the two
    # messages before an event count), each below the question itself.
    assert found == ["How long have you two been married?", "Five years!", "Lunch?"]
    assert hits[0].score > hits[1].score > 0
    assert "married" not in " ".join(found[1:])


def test_a_tool_result_and_an_error_are_embedded_as_such(setup):
    api, session, embedder = setup
    api.ok("PUT", A, {"harness": {"history": {"index": "messages_and_tools"}}})
    t = api.ok("POST", f"{A}/-/sessions/{session}/turns", {}, expect=201)
    path = f"{A}/-/sessions/{session}/turns/{t['id']}"
    events = [
        {"role": "user", "text": "Deploy it."},
        {"role": "tool_result", "text": "build 42 live", "tool_name": "deploy", "call_id": "c1"},
        {"role": "error", "text": "smoke test timeout", "tool_name": "smoke", "call_id": "c2"},
    ]
    api.ok("POST", f"{path}/events", {"events": events})
    api.ok("POST", f"{path}/commit")
    if not embedder.texts:
        pytest.skip("this store indexes from the stream")
    assert embedder.texts == [
        "Deploy it.",
        "result of deploy: build 42 live\n(after: Deploy it.)",
        "error: smoke test timeout\n(after: Deploy it. / build 42 live)",
    ]
