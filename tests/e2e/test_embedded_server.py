"""The embedded server over real HTTP: tokens, agents, sessions, turns, SIGTERM and restart."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from agent_memory.client import ApiError, Client

pytestmark = pytest.mark.e2e

IDS = [
    "solo",
    "teams/web",
    "teams/web/releases",
    "org/teams/web/releases",
    "org/teams/web/releases/v2",
]


def test_first_start_makes_a_private_token_and_every_call_needs_it(server):
    token_file = server.data_dir / "token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    for token in (None, "wrong"):
        with pytest.raises(ApiError) as caught:
            Client(server.url, token).list_agents()
        assert (caught.value.status, caught.value.code) == (401, "unauthorized")
    assert server.client().list_agents() == {"agents": [], "next": None}


def test_everything_survives_sigterm_and_restart(server):
    client = server.client()
    for agent_id in IDS:
        client.put_agent(agent_id, {"harness": {"memory": {"enabled": True}}})
        client.put_agent(agent_id, {"harness": {"history": {"index": "messages"}}})
    session = client.create_session("teams/web/releases")["id"]
    committed = client.begin_turn("teams/web/releases", session, started_by="person")["id"]
    client.commit_turn("teams/web/releases", session, committed)
    rolled = client.begin_turn("teams/web/releases", session)["id"]
    client.rollback_turn("teams/web/releases", session, rolled)
    open_turn = client.begin_turn("teams/web/releases", session, preview=True)["id"]

    assert server.stop() == 0
    assert "agent-memory stopped" in server.output
    server.start()
    client = server.client()

    assert [a["id"] for a in client.list_agents()["agents"]] == sorted(IDS)
    for agent_id in IDS:
        agent = client.get_agent(agent_id)
        assert agent["manifestVersion"] == 2
        assert [v["version"] for v in client.manifest_versions(agent_id)["versions"]] == [2, 1]
    turns = {
        t: client.get_turn("teams/web/releases", session, t) for t in (committed, rolled, open_turn)
    }
    assert turns[committed]["status"] == "committed"
    assert turns[rolled]["status"] == "rolled_back"
    assert turns[open_turn]["status"] == "open" and turns[open_turn]["preview"] is True
    assert client.begin_turn("teams/web/releases", session)["sequence"] == 4


def test_the_token_is_kept_across_restarts(server):
    token = (server.data_dir / "token").read_text()
    server.stop()
    server.start()
    assert (server.data_dir / "token").read_text() == token
    server.stop()
    assert "API token: see" in server.output
    assert token.strip() not in server.output.split("API token: see", 1)[1]


def test_concurrent_clients_begin_gap_free_turns(server):
    client = server.client()
    client.put_agent("teams/web/releases", {"harness": {}})
    session = client.create_session("teams/web/releases")["id"]
    with ThreadPoolExecutor(max_workers=12) as pool:
        begun = list(
            pool.map(lambda _: server.client().begin_turn("teams/web/releases", session), range(60))
        )
    assert sorted(t["sequence"] for t in begun) == list(range(1, 61))


def test_errors_keep_one_shape_over_http(server):
    client = server.client()
    request = urllib.request.Request(
        server.url + "/v1/agents/teams/web",
        data=b"{broken",
        method="PUT",
        headers={"Authorization": f"Bearer {client.token}", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request)
    body = json.loads(caught.value.read())
    assert caught.value.code == 400 and body["error"]["code"] == "invalid_request"
    with pytest.raises(ApiError) as missing:
        client.get_agent("teams/nobody")
    assert (missing.value.status, missing.value.code) == (404, "agent_not_found")
    assert client.list_agents()["agents"] == []


def test_a_percent_encoded_slash_reaches_the_same_agent(server):
    client = server.client()
    client.put_agent("teams/web", {"harness": {}})
    request = urllib.request.Request(
        server.url + "/v1/agents/teams%2Fweb", headers={"Authorization": f"Bearer {client.token}"}
    )
    with urllib.request.urlopen(request) as response:
        assert json.loads(response.read())["id"] == "teams/web"


def test_refuses_a_public_address_without_an_explicit_token(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_memory.cli",
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--data-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "without a token of your own" in result.stderr
    assert not (tmp_path / "agent-memory.sqlite3").exists()


def test_a_second_tenant_token_sees_only_its_own_agents(server):
    server.client().put_agent("teams/web", {"harness": {}})
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_memory.cli",
            "token",
            "create",
            "--tenant",
            "globex",
            "--data-dir",
            str(server.data_dir),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    server.stop()
    server.start()
    other = Client(server.url, result.stdout.split()[-1])
    assert other.list_agents()["agents"] == []
    with pytest.raises(ApiError) as caught:
        other.get_agent("teams/web")
    assert caught.value.status == 404


def test_concurrent_requests_of_two_tenants_each_see_only_their_own(server):
    # The resolver keeps the request it handles in process-wide state: requests in flight at
    # once must never see each other's caller, body or route.
    from agent_memory.local.tokens import add_token

    token, _ = add_token(server.data_dir, "globex")
    server.stop()
    server.start()
    clients = {"default": server.client(), "globex": Client(server.url, token)}
    for tenant, client in clients.items():
        client.put_agent(f"teams/{tenant}", {"harness": {}})
    seen: list[tuple[str, list[str]]] = []

    def lister(n: int) -> None:
        tenant = "default" if n % 2 else "globex"
        client = Client(server.url, clients[tenant].token)
        for i in range(20):
            seen.append((tenant, [a["id"] for a in client.list_agents()["agents"]]))
            # A write (the body read, the database written) between reads of the caller.
            wanted = 1 + (n + i) % 20
            manifest = {"harness": {"memory": {"search": {"max_results": wanted}}}}
            saved = client.put_agent(f"teams/{tenant}", manifest)
            assert saved["id"] == f"teams/{tenant}", saved
            assert saved["manifest"]["harness"]["memory"]["search"]["max_results"] == wanted
            with pytest.raises(ApiError) as caught:
                client.put_agent("teams/x", {"harness": {"history": {"index": "no-such"}}})
            assert caught.value.status == 400, caught.value

    with ThreadPoolExecutor(max_workers=12) as pool:
        list(pool.map(lister, range(12)))
    assert len(seen) == 12 * 20
    assert all(ids == [f"teams/{tenant}"] for tenant, ids in seen), [
        s for s in seen if s[1] != [f"teams/{s[0]}"]
    ][:5]


def test_the_python_client_makes_every_call_a_harness_and_an_app_make(server):
    client = server.client()
    agent = "teams/web/releases"
    memory = {
        "enabled": True,
        "tools": ["add_memory"],
        "scope": {"read": ["agent"], "write": ["agent"]},
    }
    client.put_agent(agent, {"harness": {"memory": memory, "history": {"index": "messages"}}})
    session = client.create_session(agent)["id"]
    assert [s["id"] for s in client.list_sessions(agent)["sessions"]] == [session]
    first = client.begin_turn(agent, session)["id"]
    client.append_events(agent, session, first, [{"role": "user", "text": "ship on tuesdays"}])
    client.call_tool(agent, session, first, "add_memory", summary="Releases ship on Tuesdays")
    client.commit_turn(agent, session, first)
    second = client.begin_turn(agent, session)["id"]
    recalled = client.recall(agent, session, second, "user: when do we ship?")
    assert recalled["records"][0]["summary"] == "Releases ship on Tuesdays"
    assert [e["text"] for e in client.history(agent, session)["events"]] == ["ship on tuesdays"]
    exported = client.export(agent, session)
    # The first turn's add_memory changed memory: its memory.updated follows the turn's events.
    assert [line["type"] for line in exported] == ["turn", "event", "memory.updated", "turn"]
    assert exported[2]["changes"][0]["operation"] == "create"
    assert client.memory_index(agent, session)["index"] == ""
    assert client.compact(agent, session)["index"] == ""
    assert "embed" in {u["purpose"] for u in client.usage(agent)["usage"]}
    status = None
    try:
        client.rerun_extraction(agent, session, first)
    except ApiError as exc:
        status = exc.status
    assert status == 409  # its review did not fail
