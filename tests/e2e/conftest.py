"""Start `agent-memory serve` as a real subprocess on a free port and talk to it over HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_memory.client import Client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """One `agent-memory serve` process; restartable on the same data directory."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.process: subprocess.Popen[str] | None = None
        # The server writes to a file, never to a pipe nobody reads while it runs (a full pipe
        # would stall it); what it said is printed when the test ends.
        self.log = data_dir.parent / f"server-{self.port}.log"

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, *extra: str, env: dict[str, str] | None = None) -> Server:
        command = [
            sys.executable,
            "-m",
            "agent_memory.cli",
            "serve",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            *extra,
        ]
        with self.log.open("a") as log:
            self.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                text=True,
                env={**os.environ, **(env or {})},
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.output}")
            try:
                urllib.request.urlopen(self.url + "/v1/openapi.json", timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start in 20 s")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        assert self.process is not None
        self.process.send_signal(sig)
        code = self.process.wait(timeout=20)
        self.process = None
        return code

    def client(self) -> Client:
        return Client(self.url, (self.data_dir / "token").read_text().strip())


def _serving(data_dir: Path, env: dict[str, str] | None = None) -> Iterator[Server]:
    srv = Server(data_dir).start(env=env)
    yield srv
    if srv.process is not None:
        srv.process.kill()
        srv.process.wait()
    print(srv.output[-20_000:])  # shown with a failing test's report


@pytest.fixture
def server(tmp_path) -> Iterator[Server]:
    yield from _serving(tmp_path / "data")


@pytest.fixture(scope="module")
def module_server(tmp_path_factory) -> Iterator[Server]:
    """One server for a module whose tests keep to their own agents (starting one costs ~1 s)."""
    yield from _serving(tmp_path_factory.mktemp("server") / "data")


@pytest.fixture(scope="module")
def console_server(tmp_path_factory) -> Iterator[Server]:
    """A module's server for the console's browser tests: every test opens pages that each hold
    an event stream, and a closed page's stream is let go only at the server's next heartbeat,
    so a tenant's default four stream slots would run out across the module."""
    env = {"AGENT_MEMORY_EVENT_STREAMS_PER_TENANT": "64"}
    yield from _serving(tmp_path_factory.mktemp("console") / "data", env)


@pytest.fixture
def make_server(tmp_path) -> Iterator[type[Server]]:
    """Server itself, for a test that starts one its own way (a data directory made before, or
    settings in the environment); each made is killed when the test ends."""
    made: list[Server] = []

    class Tracked(Server):
        def __init__(self, data_dir: Path) -> None:
            super().__init__(data_dir)
            made.append(self)

    yield Tracked
    for srv in made:
        if srv.process is not None:
            srv.process.kill()
            srv.process.wait()
        print(srv.output[-20_000:])
