"""The CLI answers a mistake with one line on stderr and exit status 1, never a traceback."""

import io
import socket

import pytest

from agent_memory.cli import main

pytestmark = pytest.mark.unit


def a_closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_server_is_named(capsys):
    # A bare host and port, as the help writes the default, is plain HTTP.
    url = f"127.0.0.1:{a_closed_port()}"
    assert main(["agents", "--url", url, "ls"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"agent-memory: cannot reach {url}: ") and "Traceback" not in err


def test_a_manifest_that_is_not_json_is_said_so(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("{nope"))
    assert main(["agents", "--url", f"127.0.0.1:{a_closed_port()}", "put", "a", "-"]) == 1
    assert capsys.readouterr().err.startswith("agent-memory: the input is not JSON: ")


def test_a_missing_file_is_named(capsys, tmp_path):
    missing = tmp_path / "nope.json"
    assert main(["agents", "put", "a", str(missing)]) == 1
    assert capsys.readouterr().err.strip() == f"agent-memory: No such file or directory: {missing}"


def test_the_client_raises_its_own_error_when_the_server_is_down():
    from agent_memory.client import Client, ClientError, ConnectionFailed

    url = f"http://127.0.0.1:{a_closed_port()}"
    with pytest.raises(ConnectionFailed) as caught:
        Client(url, "token", timeout=2).list_agents()
    assert isinstance(caught.value, ClientError)
    assert caught.value.url == url and str(caught.value).startswith(f"cannot reach {url}: ")
