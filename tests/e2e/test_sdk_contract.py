"""The SDK's contract: `Client` and `AsyncClient` run the same scenarios against the embedded
server over real HTTP. The async client is driven through `Synced`, which runs each of its
calls on an event loop in a thread, so one scenario's code exercises both."""

from __future__ import annotations

import asyncio
import inspect
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from agent_memory.client import (
    ApiError,
    AsyncClient,
    Client,
    ClientError,
    ConnectionFailed,
    RetryPolicy,
)
from agent_memory.client.calls import Area
from agent_memory.client.models import FileVersion, Memory, Record, Turn
from manifests import memory_manifest

pytestmark = pytest.mark.e2e

MANIFEST = memory_manifest(pinned={"max_tokens": 500})


class Synced:
    """An `AsyncClient` (or one of its namespaces) whose calls block until their coroutine,
    run on `loop`, is done; an async iterator comes back as a list's iterator."""

    def __init__(self, target: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._target = target
        self._loop = loop

    def _wait(self, awaitable: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(awaitable, self._loop).result(60)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if isinstance(value, Area):
            return Synced(value, self._loop)
        if not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            result = value(*args, **kwargs)
            if inspect.isawaitable(result):
                return self._wait(result)
            if hasattr(result, "__anext__"):
                return iter(self._wait(_collect(result)))
            return result

        return call


async def _collect(items: Any) -> list[Any]:
    return [item async for item in items]


@pytest.fixture
def server(module_server):
    return module_server


@pytest.fixture(params=["sync", "async"])
def sdk(request, server) -> Iterator[Any]:
    token = (server.data_dir / "token").read_text().strip()
    if request.param == "sync":
        with Client(server.url, token) as client:
            yield client
        return
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    client = AsyncClient(server.url, token)
    try:
        yield Synced(client, loop)
    finally:
        asyncio.run_coroutine_threadsafe(client.aclose(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture
def agent(sdk, request) -> str:
    """A fresh agent for the test, named after it and the client that runs it."""
    name = request.node.name.replace("[", "-").replace("]", "").replace("_", "-")[-60:]
    agent_id = f"sdk/{name.strip('-')}"
    sdk.agents.put(agent_id, MANIFEST)
    return agent_id


def test_agents_put_get_page_fork_and_delete(sdk, agent):
    # Given five agents beside the test's own
    for n in range(5):
        sdk.agents.put(f"{agent}/{n}", {"harness": {}})
    saved = sdk.agents.put(agent, {"harness": {"history": {"index": "messages"}}})
    assert saved.id == agent and saved.manifest_version == 2

    # Then get and paging see them, the iterator page after page
    assert sdk.agents.get(agent).manifest["harness"]["history"] == {
        "index": "messages",
        "search": "session",
        "fact_keys": None,
        "entity_links": False,
    }
    first = sdk.agents.list(limit=2)
    assert len(first.items) == 2 and first.next
    every = [a.id for a in sdk.agents.iter(limit=2)]
    assert {agent, *(f"{agent}/{n}" for n in range(5))} <= set(every)
    assert every == sorted(every) and len(every) == len(set(every))
    versions = sdk.agents.manifest_versions(agent)
    assert [v.version for v in versions.items] == [2, 1]
    assert sdk.agents.manifest_version(agent, 1).manifest["harness"]["memory"]["enabled"] is True

    # When it is forked and the original deleted
    copy = sdk.agents.fork(agent, f"{agent}-copy")
    assert copy.forked_from == agent and copy.manifest_version == 1
    sdk.agents.delete(agent)

    # Then the original is a 404 with its code and message, and the copy stays
    with pytest.raises(ApiError) as missing:
        sdk.agents.get(agent)
    assert (missing.value.status, missing.value.code) == (404, "agent_not_found")
    assert agent in missing.value.message
    assert sdk.agents.get(f"{agent}-copy").id == f"{agent}-copy"


def test_memories_with_versions_paging_and_compare_and_swap(sdk, agent, server):
    memories = sdk.agents.memories
    made = memories.put(agent, "notes/a.md", "---\ndescription: first\n---\none\n")
    assert isinstance(made, Memory) and made.version == 1 and made.description == "first"
    for n in range(3):
        memories.put(agent, f"notes/b{n}.md", f"b{n}\n")

    page = memories.list(agent, "notes", limit=2)
    assert len(page.items) == 2 and page.next and page.items[0].content is None
    assert [m.path for m in memories.iter(agent, "notes", limit=2)] == [
        "/memories/notes/a.md",
        "/memories/notes/b0.md",
        "/memories/notes/b1.md",
        "/memories/notes/b2.md",
    ]
    assert memories.get(agent, "notes/a.md").content.endswith("one\n")

    # Given another writer who changes the memory between the helper's read and its write
    other = server.client()
    raced = []

    def append(content: str | None) -> str:
        if not raced:
            raced.append(True)
            other.put_memory(agent, "notes/a.md", (content or "") + "theirs\n")
        return (content or "") + "mine\n"

    conflicts: list[int] = []
    # When the helper appends with compare-and-swap
    written = memories.update(agent, "notes/a.md", append, on_conflict=conflicts.append)
    # Then it lost once, read their write, and kept both lines
    assert conflicts == [1]
    assert written.content.endswith("one\ntheirs\nmine\n") and written.version == 3

    assert memories.search(agent, "theirs mine")[0].path == "/memories/notes/a.md"

    # A helper on a path with no memory yet creates it; a change of None leaves it alone
    created = memories.update(agent, "notes/new.md", lambda c: "fresh\n" if c is None else c)
    assert created.version == 1 and created.content == "fresh\n"
    assert memories.update(agent, "notes/new.md", lambda c: None).version == 1

    # A stale sha is a 409 memory_conflict carrying the memory as it is
    with pytest.raises(ApiError) as stale:
        memories.put(agent, "notes/a.md", "lost\n", made.content_sha256)
    assert (stale.value.status, stale.value.code) == (409, "memory_conflict")
    assert stale.value.details["current"]["contentSha256"] == written.content_sha256

    history = memories.versions(agent, "/memories/notes/a.md")
    assert [v.version for v in history.items] == [3, 2, 1]
    assert all(isinstance(v, FileVersion) for v in memories.iter_versions(agent, limit=2))
    assert memories.version(agent, history.items[-1].id).content.endswith("one\n")

    memories.delete(agent, "notes/b0.md")
    with pytest.raises(ApiError) as gone:
        memories.get(agent, "notes/b0.md")
    assert gone.value.status == 404


def test_a_turn_writes_records_commits_and_a_later_turn_recalls_them(sdk, agent):
    session = sdk.sessions.create(agent, metadata={"user": "ana"})
    assert session.metadata == {"user": "ana"}
    turn = sdk.turns.begin(agent, session.id, started_by="person")
    assert isinstance(turn, Turn) and turn.sequence == 1 and turn.status == "open"

    tools = sdk.turns.tools
    added = tools.add_memory(
        agent, session.id, turn.id, summary="Releases ship on Tuesdays", scope="agent", pinned=True
    )
    record_id = added["memories"][0]["id"]
    # The natural call: the tool's input as a dict, the caller by keyword
    noted = tools.call(
        agent,
        session.id,
        turn.id,
        "add_memory",
        {"summary": "The staging host is stg-3", "scope": "agent"},
        caller={"role": "agent", "execution": "exe-1"},
    )
    assert noted["memories"][0]["summary"] == "The staging host is stg-3"
    events = [
        {"role": "user", "text": "when do releases ship?", "sequence": 1},
        {"role": "assistant", "text": "On Tuesdays.", "sequence": 2},
    ]
    sdk.turns.events(agent, session.id, turn.id, events)
    sdk.turns.events(agent, session.id, turn.id, events)  # sent again: kept once
    detail = sdk.turns.get(agent, session.id, turn.id)
    assert len(detail.memories) == 2 and detail.executions
    assert sdk.turns.commit(agent, session.id, turn.id).status == "committed"

    # An ended turn refuses to change: 409 with its code
    with pytest.raises(ApiError) as closed:
        sdk.turns.commit(agent, session.id, turn.id)
    assert (closed.value.status, closed.value.code) == (409, "turn_closed")

    # A rolled-back turn leaves nothing
    dropped = sdk.turns.begin(agent, session.id)
    tools.add_memory(agent, session.id, dropped.id, summary="never kept")
    assert sdk.turns.rollback(agent, session.id, dropped.id).status == "rolled_back"

    # Records, their versions, search
    record = sdk.agents.records.get(agent, record_id)
    assert isinstance(record, Record) and record.pinned and record.provenance.turn_id == turn.id
    summaries = {r.summary for r in sdk.agents.records.iter(agent, limit=1)}
    assert summaries == {"Releases ship on Tuesdays", "The staging host is stg-3"}
    assert sdk.search(agent, "staging host")[0].summary == "The staging host is stg-3"
    assert (
        sdk.agents.records.list(agent, query="Tuesday releases", limit=1).items[0].id == record_id
    )

    # A later session: instructions list the pinned record; recall finds the other by meaning
    later = sdk.sessions.create(agent)
    next_turn = sdk.turns.begin(agent, later.id)
    told = sdk.turns.instructions(agent, later.id, next_turn.id)
    assert [p["id"] for p in told["pinned"]] == [record_id]
    recalled = sdk.turns.recall(agent, later.id, next_turn.id, "which host is staging?")
    assert "stg-3" in recalled["text"]
    found = tools.search_memory(agent, later.id, next_turn.id, query="staging")
    assert found["records"][0]["summary"] == "The staging host is stg-3"

    assert isinstance(sdk.agents.index_status(agent)["pendingVectors"], int)
    assert "usage" in sdk.agents.usage(agent, turn_id=turn.id)

    # Delete: gone from search at once, still readable with its versions
    deleted = sdk.agents.records.delete(agent, record_id)
    assert deleted.status == "DELETED"
    assert [v.operation for v in sdk.agents.records.versions(agent, record_id).items] == [
        "delete",
        "create",
    ]

    # History: the committed turn's events in order, paged; the rolled-back turn's never
    kept = [e.text for e in sdk.history.iter(agent, session.id, limit=1)]
    assert kept == ["when do releases ship?", "On Tuesdays."]
    assert sdk.history.list(agent, session.id, role="assistant").items[0].turn_sequence == 1
    exported = sdk.history.export(agent, session.id)
    assert [line.get("sequence") for line in exported][:1] == [1]
    assert [t.status for t in sdk.turns.iter(agent, session.id, limit=1)] == [
        "committed",
        "rolled_back",
    ]
    assert [s.id for s in sdk.sessions.iter(agent, limit=1)] == [session.id, later.id]


def test_a_reviews_pending_writes_are_approved_and_rejected(sdk, agent):
    # Given an agent whose review's writes wait for approval, and a reviewed turn
    sdk.agents.put(agent, memory_manifest(extraction={"approval": "review"}))
    session = sdk.sessions.create(agent)
    turn = sdk.turns.begin(agent, session.id)
    said = [{"role": "user", "text": "I live in Lisbon. I prefer tea over coffee."}]
    sdk.turns.events(agent, session.id, turn.id, said)
    sdk.turns.commit(agent, session.id, turn.id)
    deadline = time.monotonic() + 60
    while len(pending := sdk.agents.records.pending(agent).items) < 2:
        assert time.monotonic() < deadline, "the review did not run"
        time.sleep(0.1)
    # When an app approves one and rejects the other
    lisbon, tea = sorted(pending, key=lambda r: r.summary)
    assert lisbon.proposal is not None and lisbon.proposal.action == "add"
    assert lisbon.provenance.turn_id == turn.id
    approved = sdk.agents.records.approve(agent, lisbon.id)
    rejected = sdk.agents.records.reject(agent, tea.id)
    # Then one is a memory and the other is kept refused; neither is decided twice
    assert (approved.status, rejected.status) == ("ACTIVE", "REJECTED")
    assert [r.id for r in sdk.agents.records.list(agent).items] == [lisbon.id]
    assert sdk.agents.records.pending(agent).items == []
    with pytest.raises(ApiError) as twice:
        sdk.agents.records.approve(agent, tea.id)
    assert (twice.value.status, twice.value.code) == (409, "record_not_pending")


def test_file_memory_through_the_memory_tool_and_the_session_index(sdk, agent):
    session = sdk.sessions.create(agent)
    turn = sdk.turns.begin(agent, session.id)
    made = sdk.turns.tools.memory(
        agent,
        session.id,
        turn.id,
        command="create",
        path="/memories/prefs.md",
        file_text="---\ndescription: what ana likes\n---\ndark mode\n",
    )
    assert made["result"].startswith("File created successfully")
    sdk.turns.commit(agent, session.id, turn.id)
    later = sdk.sessions.create(agent)
    assert "what ana likes" in sdk.sessions.memory_index(agent, later.id)
    assert "prefs.md" in sdk.sessions.compact(agent, later.id)


def test_an_agents_entities_are_listed_with_what_mentions_them(sdk, agent):
    # Given two memories naming Caroline, one Sweden too
    sdk.agents.memories.put(agent, "people/caroline.md", "Caroline lives in Sweden.\n")
    sdk.agents.memories.put(agent, "people/trip.md", "A trip with Caroline's family.\n")

    # When the entities starting `caro` are listed, then the next page after the first entity
    found = sdk.agents.entities(agent, query="Caro")
    first = sdk.agents.entities(agent, limit=1)
    rest = sdk.agents.entities(agent, limit=1, cursor=first["next"])

    # Then Caroline is there with her two mentions; the pages follow in key order
    assert [(e["key"], e["count"]) for e in found["entities"]] == [("caroline", 2)]
    assert {i["path"] for i in found["entities"][0]["items"]} == {
        "/memories/people/caroline.md",
        "/memories/people/trip.md",
    }
    assert [e["key"] for e in first["entities"] + rest["entities"]] == ["caroline", "sweden"]
    with pytest.raises(ApiError) as bad:
        sdk.agents.entities(agent, cursor="not-a-cursor")
    assert (bad.value.status, bad.value.code) == (400, "invalid_cursor")


def test_bad_input_is_a_400_with_its_code_and_message(sdk, agent):
    with pytest.raises(ApiError) as bad:
        sdk.agents.put(agent, {"harness": {"memory": {"enabled": True, "bogus": 1}}})
    assert (bad.value.status, bad.value.code) == (400, "invalid_request")
    assert "bogus" in bad.value.message
    assert sdk.agents.get(agent).manifest_version == 1  # the refused save changed nothing
    session = sdk.sessions.create(agent)
    turn = sdk.turns.begin(agent, session.id)
    with pytest.raises(ApiError) as refused:
        sdk.turns.tools.add_memory(agent, session.id, turn.id, summary="")
    assert (refused.value.status, refused.value.code) == (400, "memory.invalid_argument")
    assert sdk.turns.get(agent, session.id, turn.id).memories == []
    with pytest.raises(ApiError) as missing:
        sdk.turns.begin(agent, "no-such-session")
    assert (missing.value.status, missing.value.code) == (404, "session_not_found")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_refused_connection_raises_the_sdk_error(kind):
    url = f"http://127.0.0.1:{free_port()}"
    policy = RetryPolicy(attempts=2, backoff=0.01)
    with pytest.raises(ConnectionFailed) as caught:
        if kind == "sync":
            Client(url, "t", retry=policy).agents.list()
        else:
            asyncio.run(AsyncClient(url, "t", retry=policy).agents.list())
    assert isinstance(caught.value, ClientError)
    assert (caught.value.status, caught.value.code) == (None, "connection_failed")
    assert caught.value.url == url and caught.value.message.startswith(f"cannot reach {url}: ")


def test_the_flat_call_tool_takes_the_input_as_a_dict_and_the_caller_by_keyword(server):
    # The first SDK's call, as a new user writes it (it was a TypeError)
    client = server.client()
    client.put_agent("sdk/flat", MANIFEST)
    session = client.create_session("sdk/flat")["id"]
    turn = client.begin_turn("sdk/flat", session)["id"]
    caller = {"role": "agent", "execution": "exe-flat"}
    out = client.call_tool("sdk/flat", session, turn, "add_memory", {"summary": "x"}, caller=caller)
    assert out["memories"][0]["summary"] == "x"
    # Keyword arguments still work, and win over the dict's
    out = client.call_tool("sdk/flat", session, turn, "add_memory", {"summary": "y"}, summary="z")
    assert out["memories"][0]["summary"] == "z"
    executions = client.get_turn("sdk/flat", session, turn)["executions"]
    assert [e["caller"].get("execution") for e in executions][:1] == ["exe-flat"]
