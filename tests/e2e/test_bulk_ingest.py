"""Bulk loading a JSON Lines history through the embedded server: batches sent at once, each
session in order, resumable after an interruption, idempotent."""

from __future__ import annotations

import json
import urllib.error

import pytest

from agent_memory.bulk import load, read_lines
from agent_memory.client import Client

pytestmark = pytest.mark.e2e

AGENT = "teams/import"
SESSIONS, TURNS, EVENTS = 24, 5, 4


def history_lines() -> list[str]:
    lines = []
    for s in range(SESSIONS):
        session = f"chat-{s}"
        for t in range(TURNS):
            turn = f"{session}-t{t}"
            base = {"agent": AGENT, "session": session, "turn": turn}
            lines.append(json.dumps({"op": "begin", **base}))
            events = [
                {
                    "role": "user" if n % 2 == 0 else "assistant",
                    "text": f"session {s} turn {t} message {n} word{s}x{t}x{n}",
                    "sequence": n + 1,
                }
                for n in range(EVENTS)
            ]
            # Two messages a turn's events, as a harness sending them as they come.
            lines.append(json.dumps({"op": "events", **base, "events": events[:2]}))
            lines.append(json.dumps({"op": "events", **base, "events": events[2:]}))
            lines.append(json.dumps({"op": "commit", **base}))
    return lines


def all_history(client: Client, session: str) -> list[str]:
    texts, cursor = [], None
    while True:
        page = client.history(AGENT, session, limit=200, cursor=cursor)
        texts += [e["text"] for e in page["events"]]
        cursor = page["next"]
        if cursor is None:
            return texts


def expected(s: int) -> list[str]:
    return [
        f"session {s} turn {t} message {n} word{s}x{t}x{n}"
        for t in range(TURNS)
        for n in range(EVENTS)
    ]


class Interrupted(Client):
    """A client whose connection drops for good after `calls` requests (a load killed)."""

    def __init__(self, url: str, token: str | None, calls: int) -> None:
        super().__init__(url, token)
        self.calls = calls

    def request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.calls <= 0:
            raise urllib.error.URLError("connection refused")
        self.calls -= 1
        return super().request(*args, **kwargs)


def test_a_history_loads_in_batches_resumes_after_an_interruption_and_keeps_each_event_once(
    server, tmp_path, monkeypatch
):
    import agent_memory.bulk as bulk

    monkeypatch.setattr(bulk, "_RETRIES", 2)  # a dropped connection gives up at once
    client = server.client()
    client.put_agent(AGENT, {"harness": {"history": {"index": "messages"}}})
    feed = tmp_path / "history.jsonl"
    feed.write_text("\n".join(history_lines()) + "\n")
    state = tmp_path / "history.jsonl.ingest-state"
    with feed.open() as f:
        lines = read_lines(f)

    # Given a load that stops part way (its connection gone after 6 batches of 20)
    with pytest.raises(urllib.error.URLError):
        load(
            Interrupted(server.url, client.token, 6),
            lines,
            source=feed,
            state=state,
            batch=20,
            senders=3,
        )
    through = json.loads(state.read_text())["through"]
    assert 0 < through < len(lines)

    # When it runs again, it starts after the last line every one before which was answered
    seen = []
    done = load(
        client, lines, source=feed, state=state, batch=20, senders=3, on_progress=seen.append
    )
    assert done.resumed_after == through
    assert done.counts["failed"] == 0
    assert done.done_events == done.events > 0
    assert seen and seen[-1].done_lines == done.lines
    # Then every session holds each of its events once, in order
    for s in range(SESSIONS):
        assert all_history(client, f"chat-{s}") == expected(s)
    # And the whole file again, every line sent, changes nothing
    again = load(client, lines, batch=50, senders=4)
    assert again.counts == {"applied": 0, "already applied": len(lines), "failed": 0}
    assert all_history(client, "chat-3") == expected(3)


def test_events_sent_after_their_turn_committed_fail_and_the_load_says_so(server, tmp_path):
    client = server.client()
    client.put_agent(AGENT, {"harness": {"history": {"index": "messages"}}})
    base = {"agent": AGENT, "session": "late", "turn": "t-1"}
    lines = [
        {"op": "begin", **base},
        {"op": "events", **base, "events": [{"role": "user", "text": "on time", "sequence": 1}]},
        {"op": "commit", **base},
        {"op": "events", **base, "events": [{"role": "user", "text": "too late", "sequence": 2}]},
        {"op": "explode", **base},
        "not json",
    ]
    feed = tmp_path / "late.jsonl"
    feed.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    failures: list[tuple[int, str]] = []
    with feed.open() as f:
        done = load(client, read_lines(f), on_failure=lambda n, p: failures.append((n, p)))
    assert done.counts == {"applied": 3, "already applied": 0, "failed": 3}
    assert sorted(n for n, _ in failures) == [4, 5, 6]
    assert "turn_closed" in dict(failures)[4]
    assert all_history(client, "late") == ["on time"]


def test_the_python_client_loads_a_file_and_says_what_waits_for_vectors(server, tmp_path):
    client = server.client()
    client.put_agent(AGENT, {"harness": {"history": {"index": "messages"}}})
    feed = tmp_path / "small.jsonl"
    feed.write_text("\n".join(history_lines()[:8]) + "\n")  # two turns of one session
    done = client.load_history(feed, batch=3, senders=2)
    assert done.counts == {"applied": 8, "already applied": 0, "failed": 0}
    assert (tmp_path / "small.jsonl.ingest-state").exists()
    assert all_history(client, "chat-0") == expected(0)[: 2 * EVENTS]
    status = client.index_status(AGENT)
    assert status["embeddingModel"] and 0 <= status["pendingVectors"] <= 2 * EVENTS


def test_the_cli_tells_failures_in_line_order_and_counts_only_what_it_stored(
    server, tmp_path, capsys
):
    from agent_memory.cli import main

    client = server.client()
    client.put_agent(AGENT, {"harness": {"history": {"index": "messages"}}})
    # Given a file whose first turn is whole and whose other lines all fail: events of turns
    # never begun, in twelve sessions, so several senders answer them in their own order
    good = {"agent": AGENT, "session": "ok", "turn": "ok-1"}
    said = [{"role": "user", "text": "kept", "sequence": 1}]
    lines = [
        {"op": "begin", **good},
        {"op": "events", **good, "events": said},
        {"op": "commit", **good},
    ]
    for n in range(12):
        lost = {"agent": AGENT, "session": f"lost-{n}", "turn": f"never-{n}"}
        lines.append({"op": "events", **lost, "events": said})
    feed = tmp_path / "mixed.jsonl"
    feed.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    flags = ["--url", server.url, "--token", client.token, "--senders", "4", "--batch", "1"]
    # When the CLI loads it
    assert main(["ingest", str(feed), "--no-resume", *flags]) == 1
    out, err = capsys.readouterr()
    # Then the failures come in the file's line order, and the counts are what was stored
    told = [line.split(":")[0] for line in err.splitlines() if line.startswith("line ")]
    assert told == [f"line {n}" for n in range(4, 16)]
    summary = json.loads(out)
    assert (summary["applied"], summary["failed"], summary["events"]) == (3, 12, 1)
    assert all_history(client, "ok") == ["kept"]


def test_a_file_whose_every_line_fails_stores_and_counts_no_event(server, tmp_path, capsys):
    from agent_memory.cli import main

    client = server.client()
    client.put_agent(AGENT, {"harness": {"history": {"index": "messages"}}})
    lost = {"agent": AGENT, "session": "lost", "turn": "never"}
    said = [{"role": "user", "text": "lost", "sequence": 1}]
    feed = tmp_path / "lost.jsonl"
    feed.write_text(json.dumps({"op": "events", **lost, "events": said}) + "\n")
    flags = ["--url", server.url, "--token", client.token]
    assert main(["ingest", str(feed), "--no-resume", *flags]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert (summary["applied"], summary["failed"], summary["events"]) == (0, 1, 0)
