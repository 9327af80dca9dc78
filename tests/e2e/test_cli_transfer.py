"""`agent-memory export` and `agent-memory import` between two real `agent-memory serve`: the
agent comes back as it was, the import shows its progress on stderr, a second import keeps
everything, and a cut bundle is refused (exit 2) before anything is written."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from agent_memory.bundle import read_bundle
from agent_memory.cli import main
from transfer_agent import AGENT_ID, A, populate, reads

pytestmark = pytest.mark.e2e


class Http:
    """`transfer_agent`'s calls (`ok`, `call`) over HTTP with a server's token."""

    def __init__(self, server: Any) -> None:
        self.url, self.token = server.url, server.client().token

    def call(self, method: str, path: str, body: Any = None, /, **query: Any) -> tuple[int, Any]:
        from urllib.parse import urlencode

        url = self.url + path + (f"?{urlencode(query)}" if query else "")
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                raw, status = answer.read(), answer.status
        except urllib.error.HTTPError as exc:
            raw, status = exc.read(), exc.code
        return status, json.loads(raw) if raw else None

    def ok(self, method: str, path: str, body: Any = None, /, expect: int = 200, **query: Any):
        status, payload = self.call(method, path, body, **query)
        assert status == expect, (status, payload)
        return payload


def test_an_agent_moves_between_servers_with_the_cli(server, make_server, tmp_path, capsys):
    # Given an agent on one server and an empty second server
    source = Http(server)
    populate(source)
    other = make_server(tmp_path / "other").start()
    target = Http(other)
    bundle = tmp_path / "agent.bundle"
    # When the CLI exports it and imports the bundle into the second server
    assert main(["export", "--agent", AGENT_ID, "--out", str(bundle),
                 "--url", server.url, "--token", source.token]) == 0  # fmt: skip
    out, _ = capsys.readouterr()
    assert out.startswith(f"exported 1 agent(s) to {bundle}: 1 agents, ")
    assert main(["import", str(bundle), "--url", other.url, "--token", target.token]) == 0
    out, err = capsys.readouterr()
    n = len(read_bundle(bundle).items)
    # Then the progress was on stderr, and the second server answers every read as the first
    assert f"agent-memory: imported {n}/{n} items (100%)" in err
    assert out.startswith(f"imported {bundle}: {n} items written, 0 kept")
    assert reads(target) == reads(source)
    # And importing it again (its state gone) keeps every item
    (tmp_path / "agent.bundle.import-state").unlink()
    assert main(["import", str(bundle), "--url", other.url, "--token", target.token]) == 0
    assert f"0 items written, {n} kept" in capsys.readouterr().out


def test_a_cut_bundle_is_refused_with_exit_2_and_nothing_written(server, tmp_path, capsys):
    # Given a bundle cut short
    source = Http(server)
    source.ok("PUT", A, {"harness": {"memory": {"enabled": True}}}, expect=201)
    bundle = tmp_path / "agent.bundle"
    assert main(["export", "--all", "--out", str(bundle),
                 "--url", server.url, "--token", source.token]) == 0  # fmt: skip
    source.ok("DELETE", A, expect=204)
    bundle.write_bytes(bundle.read_bytes()[:-20])
    capsys.readouterr()
    # When it is imported, then it is refused in one line, and the agent is not there
    assert main(["import", str(bundle), "--url", server.url, "--token", source.token]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agent-memory: bundle refused, nothing written: ")
    assert "cut short" in err
    assert source.call("GET", A)[0] == 404
