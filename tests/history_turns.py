"""An agent that keeps its history and searches it across its sessions by words: its past turns
loaded one committed turn at a time, and search_history asked from a turn of a new session."""

from __future__ import annotations

from typing import Any

MANIFEST = {
    "harness": {
        "memory": {"enabled": True, "search": {"mode": "lexical"}},
        "history": {"index": "messages", "search": "agent"},
    }
}
AGENT = {"role": "agent"}


def keep_turns(api: Any, agent: str, turns: list[list[dict[str, str]]]) -> None:
    """`agent` (its path, `/v1/agents/...`) made with MANIFEST, and each of `turns` (its events)
    appended and committed in order, in a session `past`."""
    api.ok("PUT", agent, MANIFEST, expect=201)
    api.ok("POST", f"{agent}/-/sessions", {"id": "past"}, expect=201)
    for events in turns:
        turn = api.ok("POST", f"{agent}/-/sessions/past/turns", {}, expect=201)["id"]
        path = f"{agent}/-/sessions/past/turns/{turn}"
        api.ok("POST", f"{path}/events", {"events": events})
        api.ok("POST", f"{path}/commit")


def ask(api: Any, agent: str, query: str) -> list[str]:
    """What search_history finds for `query` (limit 5), asked from a turn of a new session: each
    event's text as said (its last line, without the heading)."""
    sid = api.ok("POST", f"{agent}/-/sessions", None, expect=201)["id"]
    turn = api.ok("POST", f"{agent}/-/sessions/{sid}/turns", {}, expect=201)["id"]
    status, body = api.call(
        "POST",
        f"{agent}/-/sessions/{sid}/turns/{turn}/tools/search_history",
        {"query": query, "caller": AGENT, "limit": 5},
    )
    assert status == 200, body
    return [e["text"].splitlines()[-1] for e in body["output"]["events"]]
