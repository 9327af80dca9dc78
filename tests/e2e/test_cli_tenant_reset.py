"""`agent-memory tenant reset --confirm NAME [--agents]` against a real `agent-memory serve`:
`--agents` resets the agents alone and keeps the limits; without it the limits go back to the
deployment's too."""

import pytest

from agent_memory.cli import main

pytestmark = pytest.mark.e2e


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_tenant_reset_agents_keeps_the_limits_and_a_whole_reset_takes_them_back(server, capsys):
    # Given a tenant with limits its admin set and two agents
    client = server.client()
    flags = ["--url", server.url, "--token", client.token]
    run(capsys, "tenant", "limits", "--memories-per-agent", "3", *flags)
    client.put_agent("teams/a", {"harness": {"memory": {}}})
    client.put_agent("teams/b", {"harness": {}})
    # When the agents alone are reset under a wrong name, nothing changes
    assert main(["tenant", "reset", "--agents", "--confirm", "acme", *flags]) == 1
    assert "confirmation_mismatch" in capsys.readouterr().err
    assert len(client.list_agents()["agents"]) == 2
    # When they are reset under the tenant's name
    out = run(capsys, "tenant", "reset", "--agents", "--confirm", "default", *flags)
    # Then every agent is gone and the limits stay
    assert out == "tenant default agents reset: 2 agents deleted; limits kept\n"
    assert client.list_agents()["agents"] == []
    assert "memoriesPerAgent\t3\n" in run(capsys, "tenant", "limits", *flags)
    # When the whole tenant is reset
    client.put_agent("teams/c", {"harness": {}})
    out = run(capsys, "tenant", "reset", "--confirm", "default", *flags)
    # Then the agent is gone and the limits are the defaults again
    assert out == "tenant default reset: 1 agents deleted; limits back to the defaults\n"
    assert "memoriesPerAgent\t10000\n" in run(capsys, "tenant", "limits", *flags)


def test_tenant_reset_help_says_what_agents_keeps(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["tenant", "reset", "--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--agents reset only the agents (all agents and their data)" in text
    assert "the limits, the audit trail and the tokens stay" in text
