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


def test_agents_records_lists_shows_and_expires_records(server, capsys):
    # Given a committed record of an agent on a running server
    client = server.client()
    flags = ["--url", server.url, "--token", client.token]
    agent = "teams/web/releases"
    manifest = {"memory": {"enabled": True, "tools": ["add_memory"]}}
    client.put_agent(agent, {"harness": manifest})
    session = client.create_session(agent)["id"]
    turn = client.begin_turn(agent, session)["id"]
    added = client.call_tool(agent, session, turn, "add_memory", summary="Ships on Tuesdays")
    client.commit_turn(agent, session, turn)
    record = added["memories"][0]["id"]
    assert run(capsys, "agents", "records", "ls", agent, *flags).split("\t")[:2] == [
        record,
        "ACTIVE",
    ]

    # When the CLI gives it an expiry already past, it leaves the listing at once
    shown = run(
        capsys, "agents", "records", "expire", agent, record, "--at", "2020-01-01T00:00:00Z", *flags
    )
    assert '"status": "EXPIRED"' in shown
    assert run(capsys, "agents", "records", "ls", agent, *flags) == ""
    expired = run(capsys, "agents", "records", "ls", agent, "--status", "EXPIRED", *flags)
    assert expired.split("\t")[0] == record and expired.rstrip().endswith("2020-01-01T00:00:00Z")
    versions = run(capsys, "agents", "records", "versions", agent, record, *flags)
    assert [line.split("\t")[2] for line in versions.splitlines()] == ["set_expiry", "create"]

    # And --never brings it back (the SDK's set_expiry, as the CLI calls it)
    assert '"status": "ACTIVE"' in run(
        capsys, "agents", "records", "expire", agent, record, "--never", *flags
    )
    assert run(capsys, "agents", "records", "ls", agent, *flags).startswith(record)
    # A time without an offset is refused before anything is sent
    with pytest.raises(SystemExit, match="offset"):
        main(["agents", "records", "expire", agent, record, "--at", "2030-01-01T00:00:00", *flags])
    assert client.get_record(agent, record)["version"] == 3


def test_tenant_limits_sets_the_expired_retention(server, capsys):
    flags = ["--url", server.url, "--token", server.client().token]
    assert "expiredRetention\tP30D\n" in run(capsys, "tenant", "limits", *flags)
    changed = run(capsys, "tenant", "limits", "--expired-retention", "P7D", *flags)
    assert "expiredRetention\tP7D\n" in changed and "memoriesPerAgent\t10000\n" in changed
    assert main(["tenant", "limits", "--expired-retention", "P1M", *flags]) == 1
    assert "400 invalid_limit" in capsys.readouterr().err
    assert "expiredRetention\tP7D\n" in run(capsys, "tenant", "limits", *flags)


def test_the_cli_and_the_sdk_read_as_of_an_instant(server, capsys):
    import time
    from datetime import UTC, datetime

    from agent_memory.client import Client

    client = server.client()
    flags = ["--url", server.url, "--token", client.token]
    agent = "teams/web/releases"
    client.put_agent(agent, {"harness": {"memory": {"enabled": True, "tools": ["add_memory"]}}})
    client.put_memory(agent, "plan.md", "first plan")
    session = client.create_session(agent)["id"]
    turn = client.begin_turn(agent, session)["id"]
    added = client.call_tool(agent, session, turn, "add_memory", summary="Ships on Tuesdays")
    client.commit_turn(agent, session, turn)
    record = added["memories"][0]["id"]
    time.sleep(0.01)
    then = datetime.now(UTC)
    time.sleep(0.01)
    # Since then: the record expired, the plan rewritten, the manifest moved to version 2
    client.set_record_expiry(agent, record, "2020-01-01T00:00:00Z")
    client.put_memory(agent, "plan.md", "second plan")
    client.put_agent(agent, {"harness": {"memory": {"enabled": False}}})
    at = then.isoformat().replace("+00:00", "Z")

    assert run(capsys, "agents", "records", "ls", agent, *flags) == ""
    listed = run(capsys, "agents", "records", "ls", agent, "--as-of", at, *flags)
    assert listed.split("\t")[:2] == [record, "ACTIVE"]
    assert run(capsys, "memories", "cat", agent, "plan.md", "--as-of", at, *flags) == "first plan"
    assert run(capsys, "memories", "ls", agent, "--as-of", at, *flags).split("\t")[2] == "v1"
    assert '"manifestVersion": 1' in run(capsys, "agents", "get", agent, "--as-of", at, *flags)
    with pytest.raises(SystemExit, match="offset"):
        main(["agents", "get", agent, "--as-of", "2030-01-01T00:00:00", *flags])

    with Client(server.url, client.token) as sdk:
        assert [r.id for r in sdk.agents.records.list(agent, as_of=then)] == [record]
        assert [r.id for r in sdk.agents.records.iter(agent, as_of=then)] == [record]
        assert sdk.agents.memories.get(agent, "plan.md", as_of=then).content == "first plan"
        assert sdk.agents.get(agent, as_of=then).manifest_version == 1
        with pytest.raises(ValueError, match="time zone"):
            sdk.agents.records.list(agent, as_of=datetime(2030, 1, 1))


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


def test_agents_consolidate_plans_with_dry_run_then_merges(server, capsys):
    # Given an agent on a running server holding a fact and its restatement
    client = server.client()
    flags = ["--url", server.url, "--token", client.token]
    agent = "teams/web/releases"
    manifest = {"memory": {"enabled": True, "tools": ["add_memory"]}}
    client.put_agent(agent, {"harness": manifest})
    session = client.create_session(agent)["id"]
    turn = client.begin_turn(agent, session)["id"]
    for summary in ("Melanie paints", "Melanie paints landscapes at the lake"):
        client.call_tool(agent, session, turn, "add_memory", summary=summary)
    client.commit_turn(agent, session, turn)

    # When the CLI asks for the plan only, nothing changes
    planned = json.loads(run(capsys, "agents", "consolidate", agent, "--dry-run", *flags))
    assert (planned["dryRun"], planned["counts"]["merged"]) == (True, 1)
    assert len(run(capsys, "agents", "records", "ls", agent, *flags).splitlines()) == 2

    # Then a run merges the twin into the more complete record
    done = json.loads(run(capsys, "agents", "consolidate", agent, *flags))
    assert (done["status"], done["counts"]["merged"]) == ("DONE", 1)
    assert done["actions"][0]["recordId"] == planned["actions"][0]["recordId"]
    assert len(run(capsys, "agents", "records", "ls", agent, *flags).splitlines()) == 1
