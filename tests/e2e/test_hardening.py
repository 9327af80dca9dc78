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
from agent_memory.client.errors import ConnectionFailed
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


def test_idle_connections_of_one_address_make_room_for_new_ones_and_are_closed(
    tmp_path, make_server
):
    env = {"AGENT_MEMORY_CONNECTIONS_PER_CLIENT": "3", "AGENT_MEMORY_IDLE_TIMEOUT_SECONDS": "4"}
    server = make_server(tmp_path / "data").start(env=env)
    try:
        # Given an address holding its three connections, idle
        idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(3)]
        time.sleep(0.5)  # the server accepts them
        # When another client of that address (any local process) connects, it is served
        server.client().list_agents()
        # Because the longest-idle connection was closed at once to make room
        idle[0].settimeout(2)
        assert idle[0].recv(1) == b""
        # Another client address is served meanwhile.
        other = http.client.HTTPConnection(
            "127.0.0.1", server.port, timeout=5, source_address=("127.0.0.2", 0)
        )
        other.request("GET", "/v1/openapi.json")
        assert other.getresponse().status == 200
        other.close()
        # Idle ones are closed after the idle timeout.
        for sock in idle[1:]:
            sock.settimeout(10)
            assert sock.recv(1) == b""
    finally:
        server.stop()


def test_connections_being_served_are_never_closed_to_make_room(tmp_path, make_server):
    env = {"AGENT_MEMORY_CONNECTIONS_PER_CLIENT": "3"}
    server = make_server(tmp_path / "data").start(env=env)
    try:
        # Given an address whose three connections are all being served (event streams)
        admin = server.client()
        admin.put_agent("teams/web", {"harness": {}})
        held = [stream(server, admin.token, "/v1/agents/teams/web/-/events") for _ in range(3)]
        assert [status for status, _ in held] == [200] * 3
        # When it opens a fourth, that one is refused at once
        extra = socket.create_connection(("127.0.0.1", server.port))
        extra.settimeout(5)
        assert extra.recv(1) == b""
        # And the streams go on; once one ends, the address is served again
        held[0][1].close()
        deadline = time.monotonic() + 15  # a closed stream is seen at its next keep-alive
        while True:
            try:
                admin.list_agents()
                break
            except ConnectionFailed:
                assert time.monotonic() < deadline
                time.sleep(0.5)
        for _, conn in held[1:]:
            conn.close()
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
