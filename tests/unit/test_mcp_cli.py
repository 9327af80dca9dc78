"""`agent-memory mcp` on the command line, and examples/mcp_config.json, which starts it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_memory.cli import build_parser, main

pytestmark = pytest.mark.unit

EXAMPLE = Path(__file__).parents[2] / "examples" / "mcp_config.json"


def test_each_server_of_the_example_is_an_mcp_command_the_cli_parses() -> None:
    servers = json.loads(EXAMPLE.read_text())["mcpServers"]
    assert servers
    for server in servers.values():
        # A host starts it from elsewhere: the clone's CLI by its absolute path.
        assert server["command"].startswith("/")
        assert server["command"].endswith("/.venv/bin/agent-memory")
        args = build_parser().parse_args(server["args"])
        assert args.command == "mcp"
        assert args.transport == "stdio"  # what a host that spawns the server speaks
        assert set(server["env"]) == {"AGENT_MEMORY_URL", "AGENT_MEMORY_TOKEN"}


def test_the_mcp_command_refuses_a_missing_agent_and_an_unknown_transport(capsys) -> None:
    for argv in (["mcp"], ["mcp", "--agent", "a", "--transport", "sse"]):
        with pytest.raises(SystemExit) as exited:
            build_parser().parse_args(argv)
        assert exited.value.code == 2
    assert "--transport" in capsys.readouterr().err


def test_the_http_transport_refuses_an_address_beyond_loopback(capsys) -> None:
    code = main(["mcp", "--agent", "a", "--transport", "http", "--host", "0.0.0.0"])
    assert code == 2
    assert "loopback address only" in capsys.readouterr().err
