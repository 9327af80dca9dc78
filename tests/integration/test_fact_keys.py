"""Fact keys (issue #16 item 6), embedded shape: the facts a post-turn review proposes from a
message find the message in history search, though they share no word with it. (The cloud's
stream indexer makes the same key documents: tests/integration/test_indexer*.py.)"""

from __future__ import annotations

import pytest
from test_api_extraction import scripted_api

from agent_memory.adapters.models.rule_based import RuleBasedModel
from agent_memory.domain.extraction.model import (
    Candidate,
    Decision,
    Existing,
    MemoryModel,
    Message,
    ModelResult,
    ModelUsage,
)
from agent_memory.local.reindex import reindex

pytestmark = pytest.mark.integration

A = "/v1/agents/support/bot"
AGENT = {"role": "agent"}
SAID = "I adopted a greyhound named Pixel last spring"
FACT = "User owns a dog called Pixel"


class Paraphrasing(MemoryModel):
    """Proposes, from each message containing `cue`, the fact `fact` citing it; skips every
    candidate at decide (no record is written: the keys come from what is proposed)."""

    model_id = "paraphrasing"

    def __init__(self, cue: str = "greyhound", fact: str = FACT) -> None:
        self.cue, self.fact = cue, fact
        self.proposed: list[list[str]] = []

    def propose(self, messages: list[Message], instructions, existing_kinds, labels):
        cited = [m.id or "" for m in messages if self.cue in m.text]
        self.proposed.append([m.id or "" for m in messages])
        found = [Candidate(summary=self.fact, kind="fact", sources=cited)] if cited else []
        return ModelResult(
            found, [ModelUsage(model_id=self.model_id, input_tokens=1, output_tokens=1)]
        )

    def decide(self, candidates: list[Candidate], neighbours: dict[int, list[Existing]]):
        skips = [Decision(candidate=i, action="skip") for i in range(len(candidates))]
        return ModelResult(skips, [])


def setup(api, index: str | None = "messages", **history) -> str:
    harness: dict = {"memory": {"enabled": True}}
    if index:
        harness["history"] = {"index": index, "search": "agent", **history}
    api.ok("PUT", A, {"harness": harness}, expect=201)
    return api.ok("POST", f"{A}/-/sessions", expect=201)["id"]


def said(api, session: str, *texts: str) -> dict:
    t = api.ok("POST", f"{A}/-/sessions/{session}/turns", {}, expect=201)
    path = f"{A}/-/sessions/{session}/turns/{t['id']}"
    api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": x} for x in texts]})
    return api.ok("POST", f"{path}/commit")


def found(api, query: str) -> list[dict]:
    return api.ok("GET", f"{A}/-/history", query=query)["events"]


@pytest.fixture
def keyed(embedded, tmp_path):
    model = Paraphrasing()
    api, services = scripted_api(embedded, tmp_path, model)
    return api, services, model


def test_a_fact_the_review_proposed_finds_the_message_it_was_drawn_from(keyed):
    api, services, _ = keyed
    session = setup(api)
    turn = said(api, session, SAID, "The weather is fine today")
    # Before the review: the message shares no word with the question.
    assert found(api, "which dog does the user own") == []

    assert services.drain_extractions() == 1
    [hit] = found(api, "which dog does the user own")
    # The hit is the message itself, with its own words: the fact only found it.
    assert hit["text"].endswith(SAID)
    assert (hit["turnId"], hit["part"], hit["parts"]) == (turn["id"], 1, 1)
    # No record was kept (every candidate skipped): the keys come from what was proposed.
    assert api.ok("GET", f"{A}/-/records")["records"] == []


def test_the_keys_are_kept_on_the_turn_that_said_the_message(keyed):
    api, services, _ = keyed
    session = setup(api)
    turn = said(api, session, SAID, "The weather is fine today")
    services.drain_extractions()
    [keys] = services.store.event_keys("acme", "support/bot", session, turn["id"])
    history = api.ok("GET", f"{A}/-/sessions/{session}/history")["events"]
    assert keys.event_id == history[0]["id"]  # the greyhound message, not the weather
    assert (keys.turn_id, keys.turn_sequence, keys.keys) == (turn["id"], 1, (FACT,))


def test_an_agent_search_through_search_history_finds_it_too(keyed):
    api, services, _ = keyed
    session = setup(api)
    said(api, session, SAID)
    services.drain_extractions()
    t = api.ok("POST", f"{A}/-/sessions/{session}/turns", {}, expect=201)
    path = f"{A}/-/sessions/{session}/turns/{t['id']}/tools/search_history"
    out = api.ok("POST", path, {"query": "dog owned by the user", "caller": AGENT})["output"]
    assert [e["text"].endswith(SAID) for e in out["events"]] == [True]


def test_without_a_history_index_a_review_keeps_no_keys(keyed):
    api, services, _ = keyed
    session = setup(api, index=None)
    turn = said(api, session, SAID)
    assert services.drain_extractions() == 1
    assert services.store.event_keys("acme", "support/bot", session, turn["id"]) == []


def test_reindex_writes_the_key_documents_again(keyed):
    api, services, _ = keyed
    session = setup(api)
    said(api, session, SAID)
    services.drain_extractions()
    store = services.store
    with store.db.write() as conn:
        store.index.delete_agent_in(conn, "acme", "support/bot")
    store.index.forget("acme", "support/bot")
    assert found(api, "which dog does the user own") == []

    reindex(services, everything=True)
    assert [e["text"].endswith(SAID) for e in found(api, "which dog does the user own")] == [True]


def test_a_review_citing_no_message_it_read_keeps_no_keys(embedded, tmp_path):
    # The model cites an id it was never shown: nothing is keyed, and the review still ends.
    class Stray(Paraphrasing):
        def propose(self, messages, instructions, existing_kinds, labels):
            return ModelResult([Candidate(summary=FACT, kind="fact", sources=["evt_nowhere"])], [])

    api, services = scripted_api(embedded, tmp_path, Stray())
    session = setup(api)
    turn = said(api, session, SAID)
    services.drain_extractions()
    assert services.store.event_keys("acme", "support/bot", session, turn["id"]) == []
    detail = api.ok("GET", f"{A}/-/sessions/{session}/turns/{turn['id']}")
    assert detail["extraction"]["status"] == "done"
    assert found(api, "which dog does the user own") == []


RULE_SAID = "I adopted a greyhound named Pixel"


@pytest.mark.parametrize(
    ("model", "fact_keys", "kept"),
    [
        (RuleBasedModel, None, False),  # restates the message: no keys unless asked for
        (RuleBasedModel, True, True),
        (Paraphrasing, None, True),  # words facts its own way: keys by default
        (Paraphrasing, False, False),
    ],
)
def test_whether_a_review_keys_messages_follows_the_manifest_else_the_model(
    embedded, tmp_path, model, fact_keys, kept
):
    api, services = scripted_api(embedded, tmp_path, model())
    extra = {} if fact_keys is None else {"fact_keys": fact_keys}
    session = setup(api, **extra)
    assert api.ok("GET", A)["manifest"]["harness"]["history"]["fact_keys"] == fact_keys
    turn = said(api, session, RULE_SAID if model is RuleBasedModel else SAID)
    assert services.drain_extractions() == 1
    keys = services.store.event_keys("acme", "support/bot", session, turn["id"])
    assert bool(keys) is kept
    # "user" is a word of the rule-based fact ("User adopted ..."), not of the message.
    query = "user" if model is RuleBasedModel else "which dog does the user own"
    assert bool(found(api, query)) is kept


@pytest.mark.parametrize("bad", ["yes", 1, {"on": True}])
def test_fact_keys_must_be_a_boolean(keyed, bad):
    api, _, _ = keyed
    status, body = api.call(
        "PUT", A, {"harness": {"history": {"index": "messages", "fact_keys": bad}}}
    )
    # Refused whole: no agent is made.
    assert status == 400, body
    assert api.call("GET", A)[0] == 404
