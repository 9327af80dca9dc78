"""A `..` in a memory path never reaches another route: the issue's repro over HTTP, the CLI and
the SDK gives a 4xx (or a refusal before sending) and leaves the agent list as it was."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest

from agent_memory.cli import main
from agent_memory.client import ApiError, ClientError, InvalidPath

pytestmark = pytest.mark.e2e

AGENT = "teams/web/releases"


@pytest.fixture
def client(server):
    client = server.client()
    client.agents.put(AGENT, {"harness": {"memory": {}}})
    return client


def agent_ids(client) -> list[str]:
    return [a.id for a in client.agents.iter()]


def raw_put(server, token: str, path: str, body: dict) -> tuple[int, dict]:
    """A PUT sent with its path exactly as given (http.client resolves no dot segments)."""
    connection = http.client.HTTPConnection(urlsplit(server.url).netloc, timeout=10)
    try:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        connection.request("PUT", path, json.dumps(body), headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def test_over_http_neither_the_raw_nor_the_resolved_path_saves_anything(server, client):
    before = agent_ids(client)
    # Sent as typed: the memory route refuses the path
    status, body = raw_put(
        server, client.token, f"/v1/agents/{AGENT}/-/memories/../../x.md", {"content": "x"}
    )
    assert (status, body["error"]["code"]) == (400, "invalid_path")
    assert "'.' and '..' segments are not allowed" in body["error"]["message"]
    # As curl resolves it (the agent route): a memory body is no manifest
    status, body = raw_put(server, client.token, f"/v1/agents/{AGENT}/x.md", {"content": "x"})
    assert (status, body["error"]["code"]) == (400, "invalid_manifest")
    assert body["error"]["message"] == (
        "unknown top-level key 'content': a manifest takes only harness, or manifest to follow a named one"
    )
    # A dot segment inside the memory path: refused, nothing written
    status, body = raw_put(
        server, client.token, f"/v1/agents/{AGENT}/-/memories/notes/../z.md", {"content": "x"}
    )
    assert (status, body["error"]["code"]) == (400, "invalid_path")
    status, _ = raw_put(
        server, client.token, f"/v1/agents/{AGENT}/-/memories/notes/%2E%2E/z.md", {"content": "x"}
    )
    assert status == 400
    assert agent_ids(client) == before == [AGENT]
    assert list(client.agents.memories.list(AGENT)) == []


def test_the_cli_refuses_before_sending_and_shows_no_traceback(server, client, capsys, tmp_path):
    before = agent_ids(client)
    content = tmp_path / "f"
    content.write_text("x")
    flags = ["--url", server.url, "--token", client.token]
    code = main(["memories", "put", AGENT, "../../x.md", str(content), *flags])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err.startswith("agent-memory: invalid memory path '../../x.md': ")
    assert agent_ids(client) == before
    assert list(client.agents.memories.list(AGENT)) == []


def test_the_sdk_refuses_before_sending_with_its_own_error(server, client):
    before = agent_ids(client)
    for path in ("../../x.md", "notes/../z.md", "/memories/./a.md"):
        with pytest.raises(InvalidPath) as refused:
            client.agents.memories.put(AGENT, path, "x")
        assert isinstance(refused.value, ClientError) and refused.value.path == path
        with pytest.raises(InvalidPath):
            client.put_memory(AGENT, path, "x")  # the first SDK's flat call too
    with pytest.raises(InvalidPath):
        client.agents.get("teams/../x")
    # A body meant for a memory, sent as a manifest, is the server's 400
    with pytest.raises(ApiError) as refused_manifest:
        client.agents.put(f"{AGENT}/x.md", {"content": "x"})
    assert (refused_manifest.value.status, refused_manifest.value.code) == (400, "invalid_manifest")
    assert agent_ids(client) == before
    assert list(client.agents.memories.list(AGENT)) == []


def test_characters_that_mean_something_in_a_url_are_sent_as_part_of_the_path(client):
    # `%`, `?`, `#` and spaces are percent-encoded: the memory is named as given
    written = client.agents.memories.put(AGENT, "odd/50% off? #1 é.md", "x")
    assert written.path == "/memories/odd/50% off? #1 é.md"
    assert client.agents.memories.get(AGENT, "odd/50% off? #1 é.md").content == "x"
