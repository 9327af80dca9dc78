"""The SDK raises only its own ClientError family: a path refused before sending, and an answer
it cannot read, with both clients over an `httpx.MockTransport`."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from agent_memory.client import (
    AsyncClient,
    Client,
    ClientError,
    InvalidPath,
    UnexpectedResponse,
)

pytestmark = pytest.mark.unit

# An agent, as the agent route answers: what a memory write got when `..` reached that route.
AGENT = {"id": "teams/web/releases/x.md", "manifestVersion": 1}


def answering(body: object, seen: list[httpx.Request] | None = None):
    def handle(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        return httpx.Response(200, json=body)

    return handle


def test_an_answer_of_another_shape_is_an_unexpected_response():
    transport = httpx.MockTransport(answering(AGENT))
    with (
        Client("http://x", "t", transport=transport) as client,
        pytest.raises(UnexpectedResponse) as caught,
    ):
        client.agents.memories.put("teams/web/releases", "x.md", "x")
    assert isinstance(caught.value, ClientError) and caught.value.code == "unexpected_response"
    assert caught.value.message.startswith(
        "PUT /v1/agents/teams/web/releases/-/memories/x.md answered what the SDK cannot read: "
        "not a Memory ("
    )
    assert caught.value.__cause__ is not None  # the pydantic error, kept as the cause


def test_the_async_client_raises_the_same():
    async def run() -> None:
        transport = httpx.MockTransport(answering(AGENT))
        async with AsyncClient("http://x", "t", transport=transport) as client:
            with pytest.raises(UnexpectedResponse):
                await client.turns.recall("a", "s", "t", "context")

    asyncio.run(run())


def test_a_success_that_is_not_json_is_an_unexpected_response():
    def html(_: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>a proxy's page</html>")

    transport = httpx.MockTransport(html)
    with (
        Client("http://x", "t", transport=transport) as client,
        pytest.raises(UnexpectedResponse) as caught,
    ):
        client.agents.get("a")
    assert "GET /v1/agents/a answered what the SDK cannot read: not JSON" in caught.value.message


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../../x.md", "'.' and '..' segments are not allowed"),
        ("notes/../z.md", "'.' and '..' segments are not allowed"),
        ("/memories/./a.md", "'.' and '..' segments are not allowed"),
        ("notes//a.md", "empty segments (//) are not allowed"),
        ("", "name a memory such as notes/release.md"),
    ],
)
def test_a_memory_path_with_dot_or_empty_segments_is_refused_before_sending(path, reason):
    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(answering({}, seen))
    with Client("http://x", "t", transport=transport) as client:
        for call in (
            lambda: client.agents.memories.put("a", path, "x"),
            lambda: client.agents.memories.get("a", path),
            lambda: client.agents.memories.delete("a", path, recursive=True),
            lambda: client.put_memory("a", path, "x"),
        ):
            with pytest.raises(InvalidPath) as refused:
                call()
            assert refused.value.message.startswith(f"invalid memory path {path!r}: {reason}")
    assert seen == []


@pytest.mark.parametrize("agent_id", ["a/../b", "a/./b", "a//b", "", "../x"])
def test_an_agent_id_with_dot_or_empty_segments_is_refused_before_sending(agent_id):
    seen: list[httpx.Request] = []
    with Client("http://x", "t", transport=httpx.MockTransport(answering({}, seen))) as client:
        with pytest.raises(InvalidPath):
            client.agents.get(agent_id)
        with pytest.raises(InvalidPath):
            client.put_agent(agent_id, {"harness": {}})
    assert seen == []


def test_any_request_path_with_a_dot_segment_is_refused():
    seen: list[httpx.Request] = []
    with Client("http://x", "t", transport=httpx.MockTransport(answering({}, seen))) as client:
        with pytest.raises(InvalidPath):
            client.agents.records.get("a", "..")
        with pytest.raises(InvalidPath):
            client.sessions.get("a", "../../b")
    assert seen == []


def test_what_a_url_gives_meaning_to_is_percent_encoded():
    seen: list[httpx.Request] = []
    with Client("http://x", "t", transport=httpx.MockTransport(answering(None, seen))) as c:
        c.agents.memories.delete("a", "50% off? #1 é.md")
    assert seen[0].url.raw_path == b"/v1/agents/a/-/memories/50%25%20off%3F%20%231%20%C3%A9.md"
