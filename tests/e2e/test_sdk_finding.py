"""The SDK's search calls, pages, folder delete and recall, with `Client` and `AsyncClient`
alike, against the embedded server over real HTTP."""

from __future__ import annotations

import pytest
from test_sdk_contract import agent, sdk, server  # noqa: F401 - the clients and a fresh agent

from agent_memory.client import ApiError
from agent_memory.client.models import (
    EventHit,
    HistoryHits,
    Memory,
    MemoryHit,
    Recall,
    Record,
    RecordHit,
    SearchHits,
)

pytestmark = pytest.mark.e2e


def _a_committed_turn(sdk, agent):  # noqa: F811
    session = sdk.sessions.create(agent)
    turn = sdk.turns.begin(agent, session.id)
    sdk.turns.tools.add_memory(
        agent, session.id, turn.id, summary="The staging host is stg-3", scope="agent"
    )
    said = [
        {"role": "user", "text": "which host runs staging?", "sequence": 1},
        {"role": "assistant", "text": "Staging runs on stg-3.", "sequence": 2},
    ]
    sdk.turns.events(agent, session.id, turn.id, said)
    sdk.turns.commit(agent, session.id, turn.id)
    sdk.agents.memories.put(agent, "hosts.md", "staging: stg-3\n")
    return session


def test_the_one_search_and_the_agent_wide_history_search(sdk, agent):  # noqa: F811
    # Given a record, a file memory and a committed turn that all speak of staging
    session = _a_committed_turn(sdk, agent)

    # When the one search is asked
    hits = sdk.agents.search(agent, "staging stg-3")
    # Then it answers one ranked list of each kind, and iterating it yields the hits
    assert isinstance(hits, SearchHits)
    kinds = {type(hit) for hit in hits}
    assert kinds == {RecordHit, MemoryHit, EventHit}, hits
    assert len(hits) == len(hits.hits) and [h.score for h in hits] == sorted(
        (h.score for h in hits), reverse=True
    )
    only_files = sdk.agents.search(agent, "staging", types=["memories"], limit=5)
    assert [h.path for h in only_files] == ["/memories/hosts.md"]

    # And the history search finds the events across sessions, naming each one's session
    found = sdk.history.search(agent, "staging host")
    assert isinstance(found, HistoryHits)
    assert {e.text.splitlines()[-1] for e in found} == {
        "which host runs staging?",
        "Staging runs on stg-3.",
    }
    assert {(e.session, e.turn) for e in found} == {(session.id, 1)}
    one = sdk.history.search(agent, "staging", session_id=session.id, limit=1)
    assert len(one) == 1 and one.next
    rest = sdk.history.search(agent, "staging", session_id=session.id, cursor=one.next)
    assert len(rest) == 1 and rest.events[0].id != one.events[0].id


def test_a_page_iterates_its_items_and_a_folder_goes_only_when_asked(sdk, agent):  # noqa: F811
    for path in ("notes/a.md", "notes/deep/b.md", "top.md"):
        sdk.agents.memories.put(agent, path, "x")

    # A page yields its memories, not its fields
    page = sdk.agents.memories.list(agent)
    assert [m.path for m in page] == [
        "/memories/notes/a.md",
        "/memories/notes/deep/b.md",
        "/memories/top.md",
    ]
    assert all(isinstance(m, Memory) for m in page) and len(page) == 3
    assert page[0].path == "/memories/notes/a.md" and page.next is None

    # A folder without recursive is refused; with it, every memory in it goes
    with pytest.raises(ApiError) as refused:
        sdk.agents.memories.delete(agent, "notes")
    assert (refused.value.status, refused.value.code) == (400, "recursive_required")
    sdk.agents.memories.delete(agent, "notes", recursive=True)
    assert [m.path for m in sdk.agents.memories.list(agent)] == ["/memories/top.md"]

    # A folder where nothing is: a 404 that says so
    with pytest.raises(ApiError) as missing:
        sdk.agents.memories.delete(agent, "notes", recursive=True)
    assert (missing.value.status, missing.value.message) == (
        404,
        "no memory or folder at /memories/notes",
    )


def test_recall_answers_a_model(sdk, agent):  # noqa: F811
    _a_committed_turn(sdk, agent)
    later = sdk.sessions.create(agent)
    turn = sdk.turns.begin(agent, later.id)
    recalled = sdk.turns.recall(agent, later.id, turn.id, "which host is staging?")
    assert isinstance(recalled, Recall)
    assert [r.summary for r in recalled.records] == ["The staging host is stg-3"]
    assert all(isinstance(r, Record) for r in recalled.records)
    assert "stg-3" in recalled.text
    assert recalled["text"] == recalled.text  # read as the first SDK's dict still reads


def test_the_sdk_drops_schema_from_a_manifest(sdk, agent):  # noqa: F811
    saved = sdk.agents.put(
        agent, {"$schema": "https://example.com/manifest.json", "harness": {"memory": {}}}
    )
    assert "$schema" not in saved.manifest and saved.manifest_version == 2
