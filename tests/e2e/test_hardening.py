"""The embedded server's hard edges, over real sockets: a private data directory, connections
per client, idle connections closed, event-stream slots per tenant and per session owner."""

from __future__ import annotations

import http.client
import os
import socket
import stat
import time
from typing import Any

import pytest

from agent_memory.client import ApiError, Client
from agent_memory.local.tokens import add_token

pytestmark = pytest.mark.e2e


def test_the_data_directory_and_every_file_in_it_are_private(tmp_path, make_server):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    (data / "notes.txt").write_text("kept by hand")
    os.chmod(data / "notes.txt", 0o644)
    server = make_server(data).start()
    try:
        server.client().put_agent(
            "teams/web", {"harness": {}}
        )  # the database and its -wal are written
        files = list(data.iterdir())
        assert {f.name for f in files} >= {"agent-memory.sqlite3", "token", "tokens.json"}
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        for path in files:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    finally:
        server.stop()


def test_idle_connections_of_one_client_lock_out_no_one_and_are_closed(tmp_path, make_server):
    env = {"AGENT_MEMORY_CONNECTIONS_PER_CLIENT": "3", "AGENT_MEMORY_IDLE_TIMEOUT_SECONDS": "2"}
    server = make_server(tmp_path / "data").start(env=env)
    try:
        idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(3)]
        time.sleep(1.0)  # the server accepts them
        extra = socket.create_connection(("127.0.0.1", server.port))
        extra.settimeout(5)
        assert extra.recv(1) == b""  # closed at once: this client holds its share
        # Another client address is served meanwhile.
        other = http.client.HTTPConnection(
            "127.0.0.1", server.port, timeout=5, source_address=("127.0.0.2", 0)
        )
        other.request("GET", "/v1/openapi.json")
        assert other.getresponse().status == 200
        other.close()
        # Idle ones are closed after the idle timeout; then this client is served again.
        for sock in idle:
            sock.settimeout(10)
            assert sock.recv(1) == b""
        server.client().list_agents()
    finally:
        server.stop()


def stream(server: Any, token: str, path: str) -> tuple[int, http.client.HTTPConnection]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    answer = conn.getresponse()
    if answer.status == 200:
        assert answer.read(len(b": connected\n\n")) == b": connected\n\n"
    return answer.status, conn


def test_event_stream_slots_are_per_tenant_and_a_session_stream_its_owners(server):
    admin = server.client()
    admin.put_agent("teams/web", {"harness": {}})
    admin.create_session("teams/web", id="s1")
    globex, _ = add_token(server.data_dir, "globex")
    Client(server.url, globex).put_agent("teams/web", {"harness": {}})
    own, _ = add_token(server.data_dir, "default", scopes=frozenset({"sessions:own"}), subject="u2")
    events = "/v1/agents/teams/web/-/events"

    # Another subject reaches neither the session's stream nor the agent's (every session).
    assert stream(server, own, events + "?sessionId=s1")[0] == 404
    assert stream(server, own, events)[0] == 403

    held = [stream(server, admin.token, events) for _ in range(4)]
    assert [status for status, _ in held] == [200] * 4
    assert stream(server, admin.token, events)[0] == 503  # default's four slots are taken
    status, other = stream(server, globex, events)
    assert status == 200  # globex still has its own
    for _, conn in [*held, (status, other)]:
        conn.close()
    with pytest.raises(ApiError):
        Client(server.url, own).get_session("teams/web", "s1")
