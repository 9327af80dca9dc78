"""File memory over real HTTP: 50 compare-and-swap writers, and the CLI."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from agent_memory.client import ApiError
from ingest_lines import one_turn

pytestmark = pytest.mark.e2e

AGENT = "teams/web/releases"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_fifty_compare_and_swap_writers_one_winner_per_precondition(server):
    client = server.client()
    client.put_agent(AGENT, {"harness": {"memory": {}}})
    # The seed's content is none of the writers' (writer 0 writes "0\n"): a winner writing the
    # seed's bytes again would leave its sha current, and a second writer holding it win too.
    initial = client.put_memory(AGENT, "counter.md", "seed\n", "")
    start = threading.Barrier(50)
    outcomes: list[tuple[str, str]] = []
    lock = threading.Lock()

    def writer(n: int) -> None:
        mine = server.client()
        current = mine.get_memory(AGENT, "counter.md")
        start.wait()
        try:
            mine.put_memory(AGENT, "counter.md", f"{n}\n", current["contentSha256"])
            result = ("won", current["contentSha256"])
        except ApiError as exc:
            assert (exc.status, exc.code) == (409, "memory_conflict"), exc.body
            # The refusal carries the memory as it now is.
            assert exc.body["error"]["current"]["contentSha256"] != current["contentSha256"]
            result = ("lost", current["contentSha256"])
        with lock:
            outcomes.append(result)

    with ThreadPoolExecutor(max_workers=50) as pool:
        list(pool.map(writer, range(50)))

    by_precondition: dict[str, int] = {}
    for outcome, precondition in outcomes:
        by_precondition[precondition] = by_precondition.get(precondition, 0) + (outcome == "won")
    # Each writer read the memory before any wrote: one precondition, exactly one winner.
    assert by_precondition == {initial["contentSha256"]: 1}, sorted(outcomes)
    final = client.get_memory(AGENT, "counter.md")
    wins = sum(by_precondition.values())
    assert final["version"] == 1 + wins
    versions = client.memory_versions(AGENT, path="counter.md", limit=200)["versions"]
    assert sorted(v["version"] for v in versions) == list(range(1, wins + 2))
    # No lost write: the last version's content is what the memory holds.
    newest = client.memory_version(AGENT, versions[0]["id"])
    assert newest["content"] == final["content"]


def run_cli(server, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "AGENT_MEMORY_URL": server.url,
        "AGENT_MEMORY_TOKEN": server.client().token or "",
    }
    return subprocess.run(
        [sys.executable, "-m", "agent_memory.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_the_cli_mirrors_the_api(server, tmp_path):
    server.client().put_agent(AGENT, {"harness": {"memory": {}}})
    note = tmp_path / "release.md"
    note.write_text("---\ndescription: Release rules\n---\nTag vX.Y.Z\n")

    put = run_cli(
        server, "memories", "put", AGENT, "conventions/release.md", str(note), "--sha256", ""
    )
    assert put.returncode == 0, put.stderr
    assert put.stdout.startswith("/memories/conventions/release.md v1 ")
    again = run_cli(
        server,
        "memories",
        "put",
        AGENT,
        "conventions/release.md",
        "-",
        "--sha256",
        "",
        stdin="other",
    )
    assert again.returncode == 1 and "memory_conflict" in again.stderr

    listed = run_cli(server, "memories", "ls", AGENT, "--prefix", "conventions")
    assert listed.stdout.splitlines() == [
        f"/memories/conventions/release.md\t{len(note.read_bytes())}\tv1\tRelease rules"
    ]
    assert (
        run_cli(server, "memories", "cat", AGENT, "/memories/conventions/release.md").stdout
        == note.read_text()
    )
    assert run_cli(server, "memories", "rm", AGENT, "conventions", "-r").returncode == 0
    history = run_cli(server, "memories", "versions", AGENT, "--path", "conventions/release.md")
    assert [line.split("\t")[1] for line in history.stdout.splitlines()] == ["delete", "create"]
    missing = run_cli(server, "memories", "cat", AGENT, "conventions/release.md")
    assert missing.returncode == 1 and "memory_not_found" in missing.stderr


def test_ingest_a_jsonl_file_twice_through_the_cli(server, tmp_path):
    import json as _json

    server.client().put_agent(AGENT, {"harness": {"history": {"index": "messages"}}})
    lines = one_turn(AGENT, "s-1", "t-1", "tag releases vX.Y.Z")
    feed = tmp_path / "feed.jsonl"
    feed.write_text("\n".join(_json.dumps(line) for line in lines) + "\n")

    def counts(result) -> dict:
        out = _json.loads(result.stdout)
        return {k: out[k] for k in ("applied", "already applied", "failed", "events")}

    first = run_cli(server, "ingest", str(feed))
    assert first.returncode == 0, first.stderr
    assert counts(first) == {"applied": 3, "already applied": 0, "failed": 0, "events": 1}
    # Sent again whole: nothing changes.
    second = run_cli(server, "ingest", "--no-resume", str(feed))
    assert counts(second) == {"applied": 0, "already applied": 3, "failed": 0, "events": 1}
    # Run again as it is: its state file says every line was answered, so none is sent.
    third = run_cli(server, "ingest", str(feed))
    assert third.returncode == 0
    assert _json.loads(third.stdout)["resumed_after_line"] == 3
    assert counts(third) == {"applied": 0, "already applied": 0, "failed": 0, "events": 0}
    events = server.client().request("GET", f"/v1/agents/{AGENT}/-/sessions/s-1/history")
    assert [e["text"] for e in events["events"]] == ["tag releases vX.Y.Z"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"op": "nope"}\n')
    refused = run_cli(server, "ingest", str(bad))
    assert refused.returncode == 1 and "invalid message" in refused.stderr


def test_ingest_fails_events_that_arrive_after_their_turns_commit(server, tmp_path):
    import json as _json

    server.client().put_agent(AGENT, {"harness": {"history": {"index": "messages"}}})
    turn = {"agent": AGENT, "session": "s-late", "turn": "t-1"}
    events = {
        "op": "events",
        **turn,
        "events": [{"role": "user", "text": "kept in time", "sequence": 1}],
    }
    late = {**events, "events": [{"role": "user", "text": "too late", "sequence": 2}]}
    lines = [{"op": "begin", **turn}, events, {"op": "commit", **turn}, late, events]
    feed = tmp_path / "late.jsonl"
    feed.write_text("\n".join(_json.dumps(line) for line in lines) + "\n")
    run = run_cli(server, "ingest", str(feed))
    # The late line is no redelivery: it fails, and the run says so in its exit code. The
    # events line sent again after the commit was kept before it: already applied.
    out = _json.loads(run.stdout)
    assert {k: out[k] for k in ("applied", "already applied", "failed")} == {
        "applied": 3,
        "already applied": 1,
        "failed": 1,
    }
    assert run.returncode == 1 and "line 4" in run.stderr and "turn_closed" in run.stderr
    kept = server.client().request("GET", f"/v1/agents/{AGENT}/-/sessions/s-late/history")
    assert [e["text"] for e in kept["events"]] == ["kept in time"]
