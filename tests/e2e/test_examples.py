"""The examples run as a user would run them, against the embedded server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_harness_runs_a_whole_lifecycle_and_a_later_session_recalls_the_first(server):
    token = (server.data_dir / "token").read_text().strip()
    # When the harness runs its two sessions against the server
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "harness.py"), "--url", server.url, "--token", token],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # Then it succeeds: the later prompt held the pinned rule and the memory index, and the
    # later session answered from what the first session's extraction learned
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent: From what I remember: User prefers dark mode in every editor." in done.stdout
    assert "(extraction: done, added 1)" in done.stdout
    assert "pinned rule in the later prompt: True; memory index: True" in done.stdout
    assert "first session's history: 6 events" in done.stdout

    # And what it did is in the service: the pinned rule, the extracted preference, the file
    client = server.client()
    (agent,) = [a["id"] for a in client.list_agents()["agents"]]
    summaries = {r["summary"]: r for r in client.list_records(agent)["records"]}
    assert summaries["Releases ship on Tuesdays"]["pinned"] is True
    assert summaries["User prefers dark mode in every editor"]["scope"] == "agent"
    assert client.get_memory(agent, "conventions/style.md")["content"].endswith("Be brief.\n")
