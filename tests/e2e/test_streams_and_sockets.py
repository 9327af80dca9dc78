"""The embedded server over real sockets: an event stream ends with its token, and neither
tokenless requests nor slow or idle sockets from a shared address lock out other clients."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.domain.kernel.auth import AGENTS_READ
from agent_memory.local.sse import TOKEN_CHECK_SECONDS
from agent_memory.local.tokens import add_token

pytestmark = pytest.mark.e2e

EVENTS = "/v1/agents/teams/web/-/events"
# A stream ends this soon after its token stops opening anything: one token check, plus the
# time to read the tokens file and flush the last event (generous for a loaded machine).
STREAM_END_BOUND = TOKEN_CHECK_SECONDS + 1.5


def open_stream(port: int, token: str) -> tuple[http.client.HTTPConnection, object]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    conn.request("GET", EVENTS, headers={"Authorization": f"Bearer {token}"})
    answer = conn.getresponse()
    assert answer.status == 200
    assert answer.read(len(b": connected\n\n")) == b": connected\n\n"
    return conn, answer


def read_to_end(answer: object) -> tuple[bytes, float]:
    """What the stream sends until it ends, and when it ended."""
    rest = answer.read()  # type: ignore[attr-defined]
    return rest, time.monotonic()


def get_agents(port: int, token: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/v1/agents", headers={"Authorization": f"Bearer {token}"})
    status = conn.getresponse().status
    conn.close()
    return status


def test_an_open_stream_ends_soon_after_its_token_is_revoked(server):
    # Given a stream open with a token made for it
    server.client().put_agent("teams/web", {"harness": {}})
    token, grant = add_token(server.data_dir, "default", scopes=frozenset({AGENTS_READ}))
    conn, answer = open_stream(server.port, token)
    # When the token is revoked on the command line
    subprocess.run(
        [sys.executable, "-m", "agent_memory.cli", "token", "revoke", grant.id]
        + ["--data-dir", str(server.data_dir)],
        check=True,
        capture_output=True,
    )
    revoked = time.monotonic()
    # Then the stream says why and ends within the bound, and the token opens nothing more
    rest, ended = read_to_end(answer)
    assert rest.endswith(b'event: stream.closed\ndata: {"reason": "token_invalid"}\n\n')
    assert ended - revoked < STREAM_END_BOUND
    assert get_agents(server.port, token) == 401
    conn.close()
    # And the stream's slot is free again: the tenant's four open at once
    held = [open_stream(server.port, server.client().token)[0] for _ in range(4)]
    for c in held:
        c.close()


def test_an_open_stream_ends_soon_after_its_token_expires(server):
    # Given a stream open with a token that expires in two seconds
    server.client().put_agent("teams/web", {"harness": {}})
    expires = datetime.now(UTC) + timedelta(seconds=2)
    token, _ = add_token(
        server.data_dir, "default", scopes=frozenset({AGENTS_READ}), expires=expires
    )
    conn, answer = open_stream(server.port, token)
    # When it expires, then the stream ends within the bound of its expiry
    rest, ended = read_to_end(answer)
    late = ended - (time.monotonic() + (expires - datetime.now(UTC)).total_seconds())
    assert rest.endswith(b'event: stream.closed\ndata: {"reason": "token_invalid"}\n\n')
    assert -0.1 < late < STREAM_END_BOUND
    assert get_agents(server.port, token) == 401
    conn.close()


def test_tokenless_requests_from_the_same_address_never_refuse_a_valid_token(server):
    # Given a valid token, and another local process sending requests without one
    token = server.client().token
    tokenless = [get_agents(server.port, "") for _ in range(40)]
    # Then the tokenless are refused past 30 a minute
    assert tokenless[:30] == [401] * 30 and set(tokenless[30:]) == {429}
    # And the valid token from the same address is served
    assert [get_agents(server.port, token) for _ in range(5)] == [200] * 5


def test_slow_header_sockets_from_the_same_address_lock_out_no_one(make_server, tmp_path):
    # Given a server with its default limits
    server = make_server(tmp_path / "data").start()
    token = server.client().token
    try:
        # When a local process opens more slow-header sockets than an address's share, each
        # holding half a request line
        slow = []
        for _ in range(96):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            sock.sendall(b"GET /v1/agen")
            slow.append(sock)
        time.sleep(0.5)
        # Then another local client is still answered at once, again and again
        for _ in range(5):
            started = time.monotonic()
            assert get_agents(server.port, token) == 200
            assert time.monotonic() - started < 3
        # And a socket that never finishes its headers is closed after the header timeout
        lingering = slow[-1]
        lingering.settimeout(20)
        started = time.monotonic()
        assert lingering.recv(1) == b""
        assert time.monotonic() - started < 10 + 2
    finally:
        for sock in slow:
            sock.close()
        server.stop()
