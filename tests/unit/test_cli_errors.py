"""The CLI answers a mistake with one line on stderr and exit status 1, never a traceback."""

import io
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agent_memory.cli import main

pytestmark = pytest.mark.unit


def a_closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_server_is_named_with_how_to_point_the_cli_at_one(capsys):
    # Given no server at the URL (a bare host and port, as the help writes the default)
    url = f"127.0.0.1:{a_closed_port()}"
    # When `agents ls` is run against it
    assert main(["agents", "--url", url, "ls"]) == 1
    # Then one line says where it looked, and how to start a server or point elsewhere
    err = capsys.readouterr().err
    assert err == (
        f"agent-memory: could not reach the server at {url} (connection refused). Is it "
        "running? Start one with `agent-memory serve` (or `make serve`), or point at yours "
        "with --url or AGENT_MEMORY_URL\n"
    )
    assert "Errno" not in err


def test_serving_on_a_public_address_without_a_token_says_why_and_what_allows_it(capsys):
    # When the server is asked to listen beyond loopback without a token of its own
    assert main(["serve", "--host", "0.0.0.0", "--data-dir", "/nonexistent/never-made"]) == 2
    # Then it refuses in a plain sentence naming the flag and the setting that allow it
    err = capsys.readouterr().err
    assert err.startswith(
        "agent-memory: Not listening on 0.0.0.0 without a token of your own: it is not a "
        "loopback address, so anyone who reaches it could use the API. Pass --token (or set "
        "AGENT_MEMORY_TOKEN) to one of at least 32 characters, or listen on 127.0.0.1."
    )
    assert "Value error" not in err


def test_a_short_token_on_a_public_address_is_refused_with_how_to_make_one(capsys):
    assert main(["serve", "--host", "0.0.0.0", "--token", "short"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agent-memory: Not listening on 0.0.0.0 with a token of 5 characters")
    assert "secrets.token_urlsafe(32)" in err and "Value error" not in err


def test_a_memory_path_with_dot_segments_is_refused_before_anything_is_sent(capsys, tmp_path):
    # Given a file to write and no server at all (a request would fail to connect)
    content = tmp_path / "f"
    content.write_text("x")
    url = f"127.0.0.1:{a_closed_port()}"
    for path in ("../../x.md", "notes/../z.md", "./a.md", "a//b.md"):
        # When the CLI is asked to write it
        code = main(["memories", "put", "teams/web/releases", path, str(content), "--url", url])
        # Then it refuses the path itself, in one line, without trying the server
        err = capsys.readouterr().err
        assert code == 1 and err.startswith(f"agent-memory: invalid memory path {path!r}: ")
        assert "could not reach" not in err and "Traceback" not in err


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


class _OneAnswer(BaseHTTPRequestHandler):
    """Answers every request 200 with an agent, as the agent route would: what a memory write
    got back when a `..` in its path reached that route."""

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"id": "teams/web/releases/x.md", "manifestVersion": 1}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_PUT = do_POST = do_DELETE = _answer

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def odd_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OneAnswer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    "argv",
    [
        ["memories", "put", "teams/web/releases", "x.md", "-"],
        ["memories", "cat", "teams/web/releases", "x.md"],
        ["agents", "get", "teams/web/releases"],
        ["tenant", "reset", "--confirm", "default"],
        ["ingest", "-"],
    ],
)
def test_an_answer_of_another_shape_is_one_line_not_a_traceback(
    capsys, monkeypatch, odd_server, argv
):
    # Given a server whose answer is not what the command reads
    line = '{"op": "begin", "agent": "a", "session": "s", "turn": "t"}\n'
    monkeypatch.setattr("sys.stdin", io.StringIO(line if argv[0] == "ingest" else "x"))
    # When the command runs against it
    code = main([*argv, "--url", odd_server])
    # Then it says so in one line and exits 1
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err and err.count("\n") == 1
    assert err.startswith("agent-memory: ") and "answered what the SDK cannot read" in err
