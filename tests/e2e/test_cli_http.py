"""The client commands of the CLI against a real `agent-memory serve`."""

import io
import json
import time

import pytest

from agent_memory.cli import main

pytestmark = pytest.mark.e2e


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_agents_ls_is_a_table_and_agents_memories_manage_files(server, capsys, monkeypatch):
    client = server.client()
    flags = ["--url", server.url, "--token", client.token]
    client.put_agent("teams/web/releases", {"harness": {"memory": {}}})
    client.put_agent("teams/web/releases", {"harness": {"memory": {"access": "read_only"}}})
    client.put_agent("ops", {"harness": {}})

    rows = [line.split("\t") for line in run(capsys, "agents", "ls", *flags).splitlines()]
    assert [(r[0], r[1]) for r in rows] == [("ops", "v1"), ("teams/web/releases", "v2")]
    assert all(len(r) == 3 and r[2].startswith("20") for r in rows)

    monkeypatch.setattr("sys.stdin", io.StringIO("---\ndescription: Releases\n---\nTag.\n"))
    put = run(capsys, "agents", "memories", "put", "teams/web/releases", "r.md", "-", *flags)
    assert put.startswith("/memories/r.md v1 ")
    assert run(capsys, "agents", "memories", "cat", "teams/web/releases", "r.md", *flags) == (
        "---\ndescription: Releases\n---\nTag.\n"
    )
    listed = run(capsys, "memories", "ls", "teams/web/releases", *flags)
    assert listed == "/memories/r.md\t35\tv1\tReleases\n"
    run(capsys, "agents", "memories", "rm", "teams/web/releases", "r.md", *flags)
    versions = run(capsys, "agents", "memories", "versions", "teams/web/releases", *flags)
    assert [line.split("\t")[1] for line in versions.splitlines()] == ["delete", "create"]


def test_tenant_limits_shows_and_sets_them(server, capsys):
    flags = ["--url", server.url, "--token", server.client().token]
    shown = run(capsys, "tenant", "limits", *flags)
    assert "memoriesPerAgent\t10000\n" in shown
    changed = run(capsys, "tenant", "limits", "--memories-per-agent", "3", *flags)
    assert "memoriesPerAgent\t3\n" in changed and "memoryBytes\t102400\n" in changed
    assert main(["tenant", "limits", "--memory-bytes", "0", *flags]) == 1
    assert "400 invalid_limit" in capsys.readouterr().err


def test_tenant_reset_deletes_every_agent_after_the_name_is_confirmed(server, capsys):
    client = server.client()
    flags = ["--url", server.url, "--token", client.token]
    client.put_agent("teams/a", {"harness": {}})
    client.put_agent("teams/b", {"harness": {}})
    assert main(["tenant", "reset", "--confirm", "acme", *flags]) == 1
    assert "confirmation_mismatch" in capsys.readouterr().err
    assert len(client.list_agents()["agents"]) == 2
    out = run(capsys, "tenant", "reset", "--confirm", "default", *flags)
    assert out == "tenant default reset: 2 agents deleted\n"
    assert client.list_agents()["agents"] == []


def test_records_pending_approve_and_reject(server, capsys):
    # Given an agent whose review's writes wait for approval, and a reviewed turn
    client = server.client()
    flags = ["--url", server.url, "--token", client.token]
    agent = "teams/web/reviewed"
    memory = {
        "enabled": True,
        "scope": {"read": ["agent"], "write": ["agent"]},
        "extraction": {"approval": "review"},
    }
    client.put_agent(agent, {"harness": {"memory": memory}})
    session = client.sessions.create(agent)
    turn = client.turns.begin(agent, session.id)
    said = [{"role": "user", "text": "I live in Lisbon. I prefer tea over coffee."}]
    client.turns.events(agent, session.id, turn.id, said)
    client.turns.commit(agent, session.id, turn.id)
    deadline = time.monotonic() + 60
    while len(rows := run(capsys, "records", "pending", agent, *flags).splitlines()) < 2:
        assert time.monotonic() < deadline, "the review did not run"
        time.sleep(0.1)
    # Then each pending write is a row: id, action, target, turn, summary
    table = sorted(line.split("\t") for line in rows)
    assert sorted(r[4] for r in table) == ["User lives in Lisbon", "User prefers tea over coffee"]
    assert {(r[1], r[2], r[3]) for r in table} == {("add", "-", turn.id)}
    lisbon, tea = sorted(table, key=lambda r: r[4])
    # When one is approved and the other rejected
    approved = json.loads(run(capsys, "records", "approve", agent, lisbon[0], *flags))
    rejected = json.loads(run(capsys, "agents", "records", "reject", agent, tea[0], *flags))
    # Then each is decided, and nothing is left pending
    assert (approved["status"], rejected["status"]) == ("ACTIVE", "REJECTED")
    assert run(capsys, "records", "pending", agent, *flags) == ""
    # A second decision is an error naming its code
    assert main(["records", "approve", agent, tea[0], *flags]) == 1
    assert "409 record_not_pending" in capsys.readouterr().err
