"""Record memory over real HTTP against the embedded server: concurrency and event streams."""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from agent_memory.client import ApiError, Client
from manifests import memory_manifest

pytestmark = pytest.mark.e2e

AGENT = "teams/web/releases"
MANIFEST = memory_manifest(history=None)


class SseLines:
    """Non-empty lines of an event stream, read chunk by chunk as they arrive."""

    def __init__(self, response) -> None:
        self._response = response
        self._buffer = b""

    def next(self) -> str:
        while True:
            line, sep, rest = self._buffer.partition(b"\n")
            if sep:
                self._buffer = rest
                if line:
                    return line.decode()
                continue
            chunk = self._response.read1(65536)
            if not chunk:
                raise EOFError("the event stream ended")
            self._buffer += chunk


def all_records(client: Client) -> list[dict]:
    found, cursor = [], None
    while True:
        page = client.list_records(AGENT, status="all", limit=200, cursor=cursor)
        found += page["records"]
        cursor = page["next"]
        if cursor is None:
            return found


def test_twenty_clients_add_supersede_and_delete_without_losing_anything(server):
    setup = server.client()
    setup.put_agent(AGENT, MANIFEST)
    seed_session = setup.create_session(AGENT)["id"]
    seed = setup.begin_turn(AGENT, seed_session)["id"]
    for i in range(10):
        setup.call_tool(AGENT, seed_session, seed, "add_memory", summary=f"seed {i}", scope="agent")
    setup.commit_turn(AGENT, seed_session, seed)
    added: list[str] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        client = server.client()
        rng = random.Random(n)
        session = client.create_session(AGENT)["id"]
        for step in range(6):
            turn = client.begin_turn(AGENT, session)["id"]
            mine = []
            active = [
                r["id"]
                for r in client.call_tool(AGENT, session, turn, "search_memory", limit=100)[
                    "records"
                ]
            ]
            op = rng.choice(["add", "supersede", "delete"])
            try:
                if op == "add" or not active:
                    out = client.call_tool(
                        AGENT, session, turn, "add_memory", summary=f"w{n} s{step}", scope="agent"
                    )
                    mine.append(out["memories"][0]["id"])
                elif op == "supersede":
                    out = client.call_tool(
                        AGENT,
                        session,
                        turn,
                        "add_memory",
                        summary=f"w{n} s{step} fix",
                        scope="agent",
                        replaces=rng.choice(active),
                    )
                    mine.append(out["memories"][0]["id"])
                else:
                    client.call_tool(AGENT, session, turn, "delete_memory", id=rng.choice(active))
            except ApiError as exc:
                assert exc.status == 409, exc  # the target moved on: a clear refusal
            client.commit_turn(AGENT, session, turn)
            with lock:
                added.extend(mine)

    with ThreadPoolExecutor(max_workers=20) as pool:
        list(pool.map(worker, range(20)))

    records = {r["id"]: r for r in all_records(setup)}
    # No lost update: every committed add is there.
    assert set(added) <= set(records)
    assert len(records) == 10 + len(added)
    for record in records.values():
        versions = setup.record_versions(AGENT, record["id"], limit=200)["versions"]
        numbers = sorted(v["record"]["version"] for v in versions)
        assert numbers == list(range(1, record["version"] + 1)), record["id"]
        assert versions[0]["record"]["status"] == record["status"]
        operations = [v["operation"] for v in versions]
        assert operations.count("create") == 1
        assert operations.count("supersede") + operations.count("delete") <= 1
        # replaces and replacedBy always come in pairs.
        if record["status"] == "SUPERSEDED":
            assert records[record["replacedBy"]]["replaces"] == record["id"]
        if record["replaces"]:
            assert records[record["replaces"]]["replacedBy"] == record["id"]
            assert records[record["replaces"]]["status"] == "SUPERSEDED"


def test_memory_events_stream_as_server_sent_events(server):
    client = server.client()
    client.put_agent(AGENT, MANIFEST)
    session = client.create_session(AGENT)["id"]
    request = urllib.request.Request(
        f"{server.url}/v1/agents/{AGENT}/-/events?sessionId={session}",
        headers={"Authorization": f"Bearer {client.token}"},
    )
    stream = urllib.request.urlopen(request, timeout=10)
    assert stream.headers["Content-Type"] == "text/event-stream"
    lines = SseLines(stream)
    assert lines.next() == ": connected"
    turn = client.begin_turn(AGENT, session)["id"]
    record = client.call_tool(
        AGENT, session, turn, "add_memory", summary="streamed", scope="agent"
    )["memories"][0]
    client.commit_turn(AGENT, session, turn)
    event = [lines.next() for _ in range(3)]
    stream.close()
    assert event[0].startswith("id: ")
    assert event[1] == "event: memory.updated"
    data = json.loads(event[2].removeprefix("data: "))
    assert data["sessionId"] == session and data["turnId"] == turn
    assert data["changes"] == [{"id": record["id"], "operation": "create", "version": 1}]


def test_event_stream_of_a_missing_agent_is_404(server):
    request = urllib.request.Request(
        f"{server.url}/v1/agents/nobody/-/events",
        headers={"Authorization": f"Bearer {server.client().token}"},
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 404


def test_the_server_reviews_committed_turns_in_the_background(server):
    client = server.client()
    client.put_agent(AGENT, MANIFEST)
    s = client.create_session(AGENT)["id"]
    t = client.begin_turn(AGENT, s)["id"]
    client.append_events(AGENT, s, t, [{"role": "user", "text": "I prefer tea over coffee."}])
    assert client.commit_turn(AGENT, s, t)["extraction"]["status"] == "queued"
    deadline = time.monotonic() + 30
    while (review := client.get_turn(AGENT, s, t)["extraction"])["status"] != "done":
        assert review["status"] in ("queued", "running"), review
        assert time.monotonic() < deadline, review
        time.sleep(0.05)
    assert [r["summary"] for r in client.list_records(AGENT)["records"]] == [
        "User prefers tea over coffee"
    ]
