"""A history event's meaning is embedded with the message said before it (its words are indexed
as said), in the embedded shape's commit; never with a rolled-back or a preview turn's words."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings
from apiclient import ApiClient

sys.path.insert(0, str(Path(__file__).parent))
from test_indexer import FakeEmbedder  # noqa: E402

A = "/v1/agents/teams/web/releases"


@pytest.fixture
def setup(store, tmp_path):
    embedder = FakeEmbedder()
    services = build_services(Settings(data_dir=tmp_path), store=store, embedder=embedder)
    api = ApiClient(Api(services).handle)
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
    assert embedder.texts == [
        "turn 1, user: When do we ship?",
        "turn 1, assistant: On Tuesdays.\n(after: When do we ship?)",
        "turn 2, user: Why then?\n(after: On Tuesdays.)",
    ]


def test_never_after_a_rolled_back_or_a_preview_turns_words(setup):
    api, session, embedder = setup
    said(api, session, ("user", "The codename is pineapple."))
    said(api, session, ("user", "Forget that: the codename is mango."), end="rollback")
    said(api, session, ("user", "A preview thought."), preview=True)
    said(api, session, ("user", "What is the codename?"))
    if not embedder.texts:
        pytest.skip("this store indexes from the stream")
    assert (
        embedder.texts[-1]
        == "turn 4, user: What is the codename?\n(after: The codename is pineapple.)"
    )


def test_the_message_before_is_read_the_same_way_from_either_store(setup, store):
    # What the stream indexer asks the DynamoDB store, and the embedded commit the SQLite one.
    from agent_memory.domain.services.history import said_before

    api, session, _ = setup
    said(api, session, ("user", "The codename is pineapple."))
    said(api, session, ("user", "Forget that: mango."), end="rollback")
    said(api, session, ("user", "What is it?"), ("assistant", "Pineapple."))
    events = store.session_events("acme", "teams/web/releases", session, 100, None)
    last_turn = [e for e in events if e.turn_sequence == 3]
    assert [said_before(store, e) for e in last_turn] == [
        "The codename is pineapple.",
        "What is it?",
    ]
    first = [e for e in events if e.turn_sequence == 1][0]
    assert said_before(store, first) is None
