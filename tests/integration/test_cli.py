"""The CLI's shape (commands, flags after the action, help on every argument) and the local
commands' behaviour: reindex's checks and progress, serve on a port in use."""

import argparse
import io
import socket

import pytest

from agent_memory.cli import build_parser, main
from agent_memory.domain.agents.service import parse_manifest

pytestmark = pytest.mark.integration


def every_parser(parser, trail=("agent-memory",)):
    yield trail, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from every_parser(sub, (*trail, name))


def test_every_argument_has_help():
    missing = [
        f"{' '.join(trail)} {action.dest}"
        for trail, parser in every_parser(build_parser())
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction) and not action.help
    ]
    assert missing == []


@pytest.mark.parametrize(
    "argv",
    [
        ["agents", "ls", "--url", "U", "--token", "T"],
        ["agents", "--url", "U", "--token", "T", "ls"],
        ["agents", "--url", "U", "get", "a", "--token", "T"],
        ["agents", "memories", "ls", "a", "--url", "U", "--token", "T"],
        ["agents", "memories", "--url", "U", "cat", "a", "p.md", "--token", "T"],
        ["memories", "versions", "a", "--url", "U", "--token", "T"],
        ["tenant", "limits", "--memory-bytes", "5", "--url", "U", "--token", "T"],
        ["ingest", "f.jsonl", "--url", "U", "--token", "T"],
    ],
)
def test_client_flags_may_come_before_or_after_the_action(argv):
    args = build_parser().parse_args(argv)
    assert (args.url, args.token) == ("U", "T")


def test_agents_memories_is_the_memories_command_and_memories_its_alias():
    parser = build_parser()
    nested = parser.parse_args(["agents", "memories", "put", "a", "p.md", "-", "--sha256", ""])
    alias = parser.parse_args(["memories", "put", "a", "p.md", "-", "--sha256", ""])
    assert nested.run is alias.run
    assert (nested.verb, nested.agent, nested.path, nested.file, nested.sha256) == (
        "put",
        "a",
        "p.md",
        "-",
        "",
    )
    assert (alias.verb, alias.agent, alias.path, alias.file, alias.sha256) == (
        nested.verb,
        nested.agent,
        nested.path,
        nested.file,
        nested.sha256,
    )


def test_tenant_limits_takes_its_flags():
    args = build_parser().parse_args(["tenant", "limits", "--memories-per-agent", "7"])
    assert (args.memory_bytes, args.memories_per_agent) == (None, 7)


# -- reindex ------------------------------------------------------------------------------------


@pytest.fixture
def light(monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDINGS", "none")
    monkeypatch.setenv("AGENT_MEMORY_EXTRACTION_MODEL", "none")


def test_reindex_on_a_directory_without_a_database_is_an_error_that_makes_none(
    tmp_path, capsys, light
):
    empty = tmp_path / "typo"
    assert main(["reindex", "--data-dir", str(empty)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"agent-memory: no database at {empty / 'agent-memory.sqlite3'}")
    assert not empty.exists()


class Terminal(io.StringIO):
    def isatty(self):
        return True


def seeded(tmp_path):
    from agent_memory.bootstrap import build_services
    from agent_memory.settings import Settings

    services = build_services(Settings(data_dir=tmp_path))
    for name in ("a", "b"):
        services.agents.put("default", name, parse_manifest({"harness": {"memory": {}}}))
    services.close()
    return tmp_path


def test_reindex_shows_its_progress_on_a_terminal(tmp_path, monkeypatch, capsys, light):
    data = seeded(tmp_path)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["reindex", "--all", "--data-dir", str(data)]) == 0
    shown = terminal.getvalue()
    assert "\rreindexing: 1/2 agents" in shown
    assert shown.endswith("\rreindexing: 2/2 agents, 0 records, 0 files, 0 events, 0 embedded\n")
    assert capsys.readouterr().out.strip() == (
        '{"agents": 2, "records": 0, "files": 0, "events": 0, "vectors": 0}'
    )


def test_reindex_shows_no_progress_when_not_on_a_terminal(tmp_path, capsys, light):
    data = seeded(tmp_path)
    assert main(["reindex", "--all", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().err == ""


# -- serve --------------------------------------------------------------------------------------


def test_serve_on_a_port_in_use_names_the_port_and_writes_nothing(tmp_path, capsys, light):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        data = tmp_path / "data"
        assert main(["serve", "--port", str(port), "--data-dir", str(data)]) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"agent-memory: cannot listen on 127.0.0.1:{port}: the port is in use"
    assert not data.exists()


def test_reindex_with_nothing_stale_leaves_a_terminal_as_it_was(tmp_path, monkeypatch, light):
    data = seeded(tmp_path)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["reindex", "--data-dir", str(data)]) == 0
    assert terminal.getvalue() == ""
