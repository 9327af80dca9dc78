"""Which failures the SDK sends again, and how long it waits: both clients over an
`httpx.MockTransport` that answers as a throttled or failing server would."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from agent_memory.client import ApiError, AsyncClient, Client, ClientError, RetryPolicy

pytestmark = pytest.mark.unit

FAST = RetryPolicy(attempts=4, backoff=0.01, max_backoff=0.02)
AGENT = {
    "id": "a",
    "manifestVersion": 1,
    "manifest": {},
    "createdAt": "2026-12-01T00:00:00Z",
    "updatedAt": "2026-12-01T00:00:00Z",
}


class Script:
    """Answers each request with the next of `steps` (a response, or an exception to raise),
    and keeps the requests it saw."""

    def __init__(self, *steps: httpx.Response | Exception) -> None:
        self.steps = list(steps)
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        return step


def _sync(script: Script, policy: RetryPolicy, call: Callable[[Any], Any]) -> Any:
    with Client("http://sdk.test", "t", retry=policy, transport=httpx.MockTransport(script)) as c:
        return call(c)


def _async(script: Script, policy: RetryPolicy, call: Callable[[Any], Any]) -> Any:
    async def main() -> Any:
        transport = httpx.MockTransport(script)
        async with AsyncClient("http://sdk.test", "t", retry=policy, transport=transport) as c:
            return await call(c)

    return asyncio.run(main())


@pytest.fixture(params=["sync", "async"])
def run(request):
    return _sync if request.param == "sync" else _async


def error(status: int, code: str, **headers: str) -> httpx.Response:
    body = {"error": {"code": code, "message": f"{code} said"}}
    return httpx.Response(status, json=body, headers=headers)


def test_a_429_is_sent_again_after_its_retry_after(run):
    # Given a server that throttles the first try and asks for a second's wait
    script = Script(
        error(429, "throttled", **{"Retry-After": "1"}), httpx.Response(200, json=AGENT)
    )
    started = time.monotonic()
    # When the agent is read
    agent = run(script, FAST, lambda c: c.agents.get("a"))
    # Then the second try answered, after the wait the server asked for (not the 10 ms backoff)
    assert agent.id == "a" and agent.manifest_version == 1
    assert len(script.seen) == 2
    assert time.monotonic() - started >= 0.95


def test_a_post_that_got_a_503_is_not_sent_again(run):
    # A 503 may come after the server applied the call: beginning a turn twice would make two.
    script = Script(error(503, "storage_unavailable"), httpx.Response(201, json={}))
    with pytest.raises(ApiError) as caught:
        run(script, FAST, lambda c: c.turns.begin("a", "s"))
    assert (caught.value.status, caught.value.code) == (503, "storage_unavailable")
    assert caught.value.message == "storage_unavailable said"
    assert len(script.seen) == 1


def test_a_post_whose_answer_was_lost_is_not_sent_again(run):
    script = Script(httpx.ReadTimeout("read timed out"), httpx.Response(200, json={}))
    with pytest.raises(ClientError) as caught:
        run(script, FAST, lambda c: c.turns.commit("a", "s", "t"))
    assert (caught.value.status, caught.value.code) == (None, "connection_failed")
    assert len(script.seen) == 1


def test_a_post_that_never_left_is_sent_again(run):
    # A refused connection: nothing reached the server, so even a commit may go again.
    turn = {**AGENT, "agentId": "a", "sessionId": "s", "sequence": 1, "status": "committed"}
    script = Script(httpx.ConnectError("refused"), httpx.Response(200, json=turn))
    committed = run(script, FAST, lambda c: c.turns.commit("a", "s", "a"))
    assert committed.status == "committed" and len(script.seen) == 2


def test_a_get_is_sent_again_after_a_503_and_a_lost_answer(run):
    script = Script(
        error(503, "storage_unavailable"),
        httpx.ReadTimeout("slow"),
        httpx.Response(200, json=AGENT),
    )
    assert run(script, FAST, lambda c: c.agents.get("a")).id == "a"
    assert len(script.seen) == 3


def test_appended_events_go_again_only_when_each_names_its_sequence(run):
    ok = httpx.Response(200, json={"kept": 1})
    numbered = Script(error(503, "storage_unavailable"), ok)
    events = [{"role": "user", "text": "hi", "sequence": 1}]
    assert run(numbered, FAST, lambda c: c.turns.events("a", "s", "t", events)) == {"kept": 1}
    assert len(numbered.seen) == 2

    unnumbered = Script(error(503, "storage_unavailable"), ok)
    with pytest.raises(ApiError):
        run(
            unnumbered,
            FAST,
            lambda c: c.turns.events("a", "s", "t", [{"role": "user", "text": "hi"}]),
        )
    assert len(unnumbered.seen) == 1


def test_the_attempts_run_out_and_the_last_error_is_raised(run):
    script = Script(*[error(429, "throttled") for _ in range(4)])
    with pytest.raises(ApiError) as caught:
        run(script, FAST, lambda c: c.agents.get("a"))
    assert caught.value.status == 429 and len(script.seen) == 4


def test_a_retry_after_longer_than_max_wait_is_not_waited_for(run):
    script = Script(error(429, "throttled", **{"Retry-After": "3600"}))
    started = time.monotonic()
    with pytest.raises(ApiError):
        run(script, RetryPolicy(max_wait=5), lambda c: c.agents.get("a"))
    assert time.monotonic() - started < 1 and len(script.seen) == 1


def test_a_compare_and_swap_put_sent_again_after_it_applied_is_the_write_done(run):
    # Given a PUT with contentSha256 whose first try applied but whose answer was lost
    content = "# notes\n"
    mine = {
        "agentId": "a",
        "path": "/memories/notes.md",
        "content": content,
        "bytes": len(content),
        "contentSha256": hashlib.sha256(content.encode()).hexdigest(),
        "version": 2,
        "updatedAt": "2026-12-01T00:00:00Z",
        "updatedBy": "api:u1",
    }
    conflict = httpx.Response(
        409, json={"error": {"code": "memory_conflict", "message": "m", "current": mine}}
    )
    script = Script(httpx.ReadTimeout("lost"), conflict)
    # When the second try finds the memory holding what it wrote
    written = run(script, FAST, lambda c: c.agents.memories.put("a", "notes.md", content, "0" * 64))
    # Then that is the write, not a conflict
    assert written.version == 2 and written.content == content and len(script.seen) == 2


def test_a_compare_and_swap_put_that_lost_to_another_writer_is_a_conflict(run):
    theirs = {"contentSha256": "f" * 64, "path": "/memories/notes.md"}
    conflict = httpx.Response(
        409, json={"error": {"code": "memory_conflict", "message": "m", "current": theirs}}
    )
    with pytest.raises(ApiError) as caught:
        run(Script(conflict), FAST, lambda c: c.agents.memories.put("a", "notes.md", "x", "0" * 64))
    assert caught.value.code == "memory_conflict"
    assert caught.value.details["current"]["contentSha256"] == "f" * 64


def test_an_answer_that_is_not_json_is_still_the_sdk_error(run):
    script = Script(httpx.Response(502, text="<html>bad gateway</html>"))
    with pytest.raises(ApiError) as caught:
        run(script, FAST, lambda c: c.agents.get("a"))
    assert (caught.value.status, caught.value.code) == (502, "http_error")
    assert "bad gateway" in caught.value.message


def test_every_request_carries_the_token_and_plain_agent_segments(run):
    script = Script(httpx.Response(200, json=AGENT))
    run(script, FAST, lambda c: c.agents.get("teams/web/releases"))
    (request,) = script.seen
    assert request.headers["Authorization"] == "Bearer t"
    assert request.url.raw_path == b"/v1/agents/teams/web/releases"


def test_ingest_is_sent_again_after_a_503_for_its_messages_name_their_own_ids():
    # The flat `ingest` is Client's only (the bulk loader's call); a redelivered message is
    # `already applied`, so a 503 that may have come after it applied is safe to send again.
    answered = {"results": [{"status": "applied"}], "applied": 1, "alreadyApplied": 0, "failed": 0}
    script = Script(error(503, "storage_unavailable"), httpx.Response(200, json=answered))
    message = {"op": "session", "agent": "a", "session": "s"}
    assert _sync(script, FAST, lambda c: c.ingest([message]))["applied"] == 1
    assert len(script.seen) == 2


def test_a_raw_request_says_whether_it_may_go_again():
    # `request` decides by the method unless told: a POST is safe only when the caller says so.
    told = Script(error(503, "storage_unavailable"), httpx.Response(200, json={}))
    assert _sync(told, FAST, lambda c: c.request("POST", "/v1/x", {}, retry=True)) == {}
    assert len(told.seen) == 2
    untold = Script(error(503, "storage_unavailable"), httpx.Response(200, json={}))
    with pytest.raises(ApiError):
        _sync(untold, FAST, lambda c: c.request("POST", "/v1/x", {}))
    assert len(untold.seen) == 1
