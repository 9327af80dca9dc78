"""A restatement a review skips still counts as evidence: the memory it restates cites the
messages it was said again in (a `restate` version, the text unchanged), so a question about
the later conversation finds the memory. On SQLite and on DynamoDB (moto), with the rule-based
model; in review mode nothing is written for it."""

from __future__ import annotations

import pytest

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings
from apiclient import ApiClient

pytestmark = pytest.mark.integration

A = "/v1/agents/restated"


@pytest.fixture
def reviewed(store, tmp_path, embedder):
    services = build_services(
        Settings(data_dir=tmp_path), store=store, embedder=embedder, model=True
    )
    return ApiClient(Api(services).handle), services


def agent(api: ApiClient, approval: str = "auto") -> None:
    memory = {
        "enabled": True,
        "scope": {"read": ["agent"], "write": ["agent"]},
        "tools": ["add_memory"],
        "extraction": {"approval": approval},
    }
    api.ok("PUT", A, {"harness": {"memory": memory}}, expect=201)


def said(api: ApiClient, services, session: str, text: str, speaker: str = "Jon") -> None:
    """Commit a turn in which `speaker` says `text`, and drain its review."""
    turns = f"{A}/-/sessions/{session}/turns"
    turn = f"{turns}/{api.ok('POST', turns, {}, expect=201)['id']}"
    event = {"role": "user", "text": text, "metadata": {"speaker": speaker}}
    api.ok("POST", f"{turn}/events", {"events": [event]})
    api.ok("POST", f"{turn}/commit")
    services.drain_extractions()
    assert api.ok("GET", turn)["extraction"]["status"] == "done"


def active(api: ApiClient) -> list[dict]:
    return api.ok("GET", f"{A}/-/records")["records"]


def test_a_fact_said_again_in_a_later_session_is_cited_from_both(reviewed):
    # Given a memory a review kept from what Jon said in one session
    api, services = reviewed
    agent(api)
    first = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    said(api, services, first, "I like green tea.")
    (kept,) = active(api)
    cites = kept["provenance"]["sources"]
    assert cites and kept["version"] == 1

    # When he says it again in another session
    second = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    said(api, services, second, "I like green tea.")

    # Then there is still one memory, with the same text, citing both conversations
    (again,) = active(api)
    assert (again["id"], again["summary"], again["version"]) == (kept["id"], kept["summary"], 2)
    assert again["provenance"]["sources"][: len(cites)] == cites
    assert len(again["provenance"]["sources"]) > len(cites)
    assert again["provenance"]["turnId"] == kept["provenance"]["turnId"]
    # And the new version says it was a restatement, made by the later session's review
    versions = api.ok("GET", f"{A}/-/records/{kept['id']}/versions")["versions"]
    assert [v["operation"] for v in versions] == ["restate", "create"]
    assert versions[0]["changedBy"]["sessionId"] == second
    # And a search for it finds the memory once
    hits = api.ok("GET", f"{A}/-/records", query="green tea")["records"]
    assert [h["id"] for h in hits] == [kept["id"]]


def test_in_review_mode_a_restatement_writes_nothing(reviewed):
    # Given an agent whose reviews wait for approval, and an approved memory
    api, services = reviewed
    agent(api, approval="review")
    session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    said(api, services, session, "I like green tea.")
    (pending,) = api.ok("GET", f"{A}/-/records", status="PENDING")["records"]
    api.ok("POST", f"{A}/-/records/{pending['id']}/approve")
    (kept,) = active(api)

    # When the fact is said again
    said(api, services, session, "I like green tea.")

    # Then nothing waits for approval and the memory is as it was (an approval applies what
    # a review proposes; a citation alone is not worth an app's attention)
    assert api.ok("GET", f"{A}/-/records", status="PENDING")["records"] == []
    (same,) = active(api)
    assert (same["id"], same["version"]) == (kept["id"], kept["version"])
