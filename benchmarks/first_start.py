"""The embedded server's first minute: how long until it answers, and what its first searches
cost, each run in a fresh data directory and a fresh process.

    .venv/bin/python benchmarks/first_start.py [--runs 5] [--settle 2]

Each run starts `agent-memory serve` on a free loopback port, times the wait until it answers
(`GET /v1/agents` with its token), saves an agent and one record through a committed turn, and
then times two searches ranked by a query (`GET .../-/records?query=`: the query is embedded, so
the first one pays for the embedding model if it is not loaded yet). `--settle S` waits S seconds
after the server answers before saving the record, as a person or a harness would before their
first search, so the figure says whether the model is still loading by then. The same script measures
any earlier commit: it needs nothing but the server's command line and that listing route.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

AGENT = "bench/first-start"
MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "tools": ["add_memory"],
        }
    }
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(base: str, token: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read() or b"null")


def one_run(python: str, settle: float = 0.0) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        data, port = Path(tmp) / "data", _free_port()
        base = f"http://127.0.0.1:{port}"
        started = time.perf_counter()
        server = subprocess.Popen(
            [python, "-m", "agent_memory.cli", "serve", "--data-dir", str(data)]
            + ["--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            token = _wait_until_it_answers(base, data, server)
            ready = time.perf_counter() - started
            time.sleep(settle)
            _call(base, token, "PUT", f"/v1/agents/{AGENT}", MANIFEST)
            a = f"/v1/agents/{AGENT}/-/sessions"
            session = _call(base, token, "POST", a, {})["id"]
            turn = _call(base, token, "POST", f"{a}/{session}/turns", {})["id"]
            tool = {"summary": "Releases ship on Tuesdays", "scope": "agent"}
            tool["caller"] = {"role": "agent"}
            _call(base, token, "POST", f"{a}/{session}/turns/{turn}/tools/add_memory", tool)
            _call(base, token, "POST", f"{a}/{session}/turns/{turn}/commit")
            searches = []
            for query in ("when+do+we+ship", "release+day"):
                began = time.perf_counter()
                _call(base, token, "GET", f"/v1/agents/{AGENT}/-/records?query={query}")
                searches.append(time.perf_counter() - began)
        finally:
            server.terminate()
            server.wait(timeout=30)
    return {"ready_s": ready, "first_search_ms": searches[0] * 1e3, "second_ms": searches[1] * 1e3}


def _wait_until_it_answers(base: str, data: Path, server: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}")
        token_file = data / "token"
        if token_file.exists() and (token := token_file.read_text().strip()):
            try:
                _call(base, token, "GET", "/v1/agents")
                return token
            except OSError:
                pass
        time.sleep(0.02)
    raise SystemExit("the server did not answer within 120 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default=sys.executable, help="the interpreter to serve with")
    parser.add_argument("--settle", type=float, default=0.0, help="seconds to wait when it answers")
    args = parser.parse_args()
    runs = [one_run(args.python, args.settle) for _ in range(args.runs)]
    for name in ("ready_s", "first_search_ms", "second_ms"):
        values = sorted(r[name] for r in runs)
        print(
            f"{name:16} median {statistics.median(values):8.3f}  "
            f"min {values[0]:8.3f}  max {values[-1]:8.3f}  ({len(values)} runs)"
        )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
