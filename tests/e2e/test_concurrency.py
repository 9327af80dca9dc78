"""Sixteen clients of two tenants at once against one embedded server: requests are resolved
concurrently, and every answer is the asking client's own."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from agent_memory.client import Client
from agent_memory.local.tokens import add_token
from manifests import memory_manifest

pytestmark = pytest.mark.e2e

# Both tenants use the same agent id: an answer holding another request's data shows.
AGENT = "teams/shared"
MANIFEST = memory_manifest("messages", search={"mode": "lexical"})
CLIENTS = 16
ROUNDS = 4


def test_sixteen_clients_of_two_tenants_each_get_only_their_own_answers(server):
    token, _ = add_token(server.data_dir, "globex")
    server.stop()
    server.start()
    tokens = {"default": server.client().token, "globex": token}
    for tenant_token in tokens.values():
        Client(server.url, tenant_token).put_agent(AGENT, MANIFEST)
    problems: list[str] = []
    lock = threading.Lock()

    def check(ok: bool, what: str) -> None:
        if not ok:
            with lock:
                problems.append(what)

    def client_run(n: int) -> int:
        tenant = "default" if n % 2 else "globex"
        client = Client(server.url, tokens[tenant])
        mark = f"{tenant}x{n}"  # one word, the client's own
        session = client.create_session(AGENT, metadata={"owner": mark})["id"]
        calls = 0
        for i in range(ROUNDS):
            turn = client.begin_turn(AGENT, session)["id"]
            client.append_events(
                AGENT,
                session,
                turn,
                [
                    {"role": "user", "text": f"round {i} note {mark} zeta{i}"},
                    {"role": "assistant", "text": f"noted for {mark}"},
                ],
            )
            added = client.call_tool(
                AGENT, session, turn, "add_memory", summary=f"fact {i} of {mark}", scope="session"
            )
            client.commit_turn(AGENT, session, turn)
            record = client.get_record(AGENT, added["memories"][0]["id"])
            check(record["summary"] == f"fact {i} of {mark}", f"{mark} read {record}")
            # Reads: the session's own records and history, by words.
            reader = client.begin_turn(AGENT, session)["id"]
            found = client.call_tool(AGENT, session, reader, "search_memory", query=mark)
            summaries = {r["summary"] for r in found["records"]}
            check(
                summaries and all(mark in s for s in summaries),
                f"{mark} search_memory saw {summaries}",
            )
            events = client.call_tool(AGENT, session, reader, "search_history", query=mark)
            texts = [e["text"] for e in events["events"]]
            check(
                bool(texts) and all(mark in t for t in texts), f"{mark} search_history saw {texts}"
            )
            client.rollback_turn(AGENT, session, reader)
            # A file memory written and read back by the app.
            path = f"notes/{mark}.md"
            client.put_memory(AGENT, path, f"round {i} of {mark}\n")
            read = client.get_memory(AGENT, path)
            check(read["content"] == f"round {i} of {mark}\n", f"{mark} memory {read}")
            listed = client.get_session(AGENT, session)
            check(listed["metadata"] == {"owner": mark}, f"{mark} session {listed}")
            calls += 13
        return calls

    with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
        done = sum(pool.map(client_run, range(CLIENTS)))

    assert problems == []
    assert done == CLIENTS * ROUNDS * 13
    # Each tenant holds exactly its own clients' memories.
    for tenant, tenant_token in tokens.items():
        client = Client(server.url, tenant_token)
        paths = {m["path"] for m in client.list_memories(AGENT, limit=100)["memories"]}
        owners = {n for n in range(CLIENTS) if (n % 2 == 1) == (tenant == "default")}
        assert paths == {f"/memories/notes/{tenant}x{n}.md" for n in owners}
