"""How much one tenant working at its limit slows another tenant's search, on one embedded server.

    .venv/bin/python benchmarks/tenant_isolation.py [--memories 200] [--queries 100] \
        [--clients 8] [--seconds 20] [--out FILE] [--smoke]

`--smoke` is the suite's run (seconds, so the benchmark cannot rot): 12 memories a tenant,
20 queries, 4 clients, 4 seconds.

`agent-memory serve` runs with its default limits on a fresh data directory, with a token for
each of two tenants, `acme` (A, the busy one) and `globex` (B, the one measured). Each tenant's
agent `bench/notes` gets `--memories` file memories (templated notes, embedded as they are
written; the run waits until nothing is left to embed). Then:

- `alone`: B searches its memories (`GET /v1/agents/bench/notes/-/memories?query=...`), one
  request at a time on one keep-alive connection, `--queries` times, nobody else working;
- `beside A`: the same, while A runs `--clients` keep-alive connections each searching its own
  memories back to back, as fast as the server answers and its rate limit lets it (a 429 waits
  its Retry-After): A at its limit.

The report has B's p50/p90/p99 alone and beside A, the ratio of the p50s (the figure: at most
2 wanted), A's requests a second and how many of them were 429.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "core"))

AGENT = "bench/notes"
WORDS = (
    "deploy cache invoice latency schema migration vendor budget roadmap incident review "
    "backup login quota webhook search billing release sprint customer contract"
).split()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Http:
    """One keep-alive connection with one token."""

    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, str], bytes]:
        data = json.dumps(body).encode() if body is not None else None
        self.conn.request(method, path, body=data, headers=self.headers)
        answer = self.conn.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()


def note(rng: random.Random, i: int) -> str:
    words = rng.sample(WORDS, 6)
    return f"# Note {i}\n\nThe {words[0]} {words[1]} was discussed with the {words[2]} team; " + (
        f"next the {words[3]} and {words[4]} follow, with the {words[5]} checked weekly.\n"
    )


def load(port: int, token: str, memories: int, rng: random.Random) -> None:
    client = Http(port, token)
    status, _, body = client.call("PUT", f"/v1/agents/{AGENT}", {"harness": {}})
    assert status in (200, 201), body
    for i in range(memories):
        path = f"/v1/agents/{AGENT}/-/memories/notes/n{i:04d}.md"
        status, _, body = client.call("PUT", path, {"content": note(rng, i)})
        assert status in (200, 201), body


def search_path(rng: random.Random) -> str:
    query = " ".join(rng.sample(WORDS, 3))
    return f"/v1/agents/{AGENT}/-/memories?query={quote(query)}&limit=10"


def timed_searches(port: int, token: str, queries: int, rng: random.Random) -> list[float]:
    client = Http(port, token)
    for _ in range(3):  # warm-up: the connection, the model's first call
        client.call("GET", search_path(rng))
    took = []
    for _ in range(queries):
        started = time.perf_counter()
        status, _, body = client.call("GET", search_path(rng))
        took.append((time.perf_counter() - started) * 1000)
        assert status == 200, body
    return took


def busy_tenant(
    port: int, token: str, stop: threading.Event, counts: dict[str, int], rng: random.Random
) -> None:
    client = Http(port, token)
    while not stop.is_set():
        status, headers, _ = client.call("GET", search_path(rng))
        counts[str(status)] = counts.get(str(status), 0) + 1
        if status == 429:
            time.sleep(float(headers.get("Retry-After", "1")))


def summary(took: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(took, n=100, method="inclusive")
    return {
        "p50_ms": round(statistics.median(took), 1),
        "p90_ms": round(cuts[89], 1),
        "p99_ms": round(cuts[98], 1),
        "n": len(took),
    }


def wait_embedded(data_dir: Path) -> None:
    """Until the background embedder's queue is empty (searches then rank by meaning too)."""
    import sqlite3

    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        with sqlite3.connect(data_dir / "agent-memory.sqlite3") as conn:
            if not conn.execute("SELECT 1 FROM embed_queue LIMIT 1").fetchone():
                return
        time.sleep(0.5)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from agent_memory.domain.kernel.auth import ALL_SCOPES
    from agent_memory.local.tokens import add_token

    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="tenant-isolation-") as tmp:
        data_dir = Path(tmp) / "data"
        port = free_port()
        log = open(Path(tmp) / "server.log", "w")  # noqa: SIM115 (open while the server runs)
        env = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "core")}
        server = subprocess.Popen(
            [sys.executable, "-m", "agent_memory.cli", "serve", "--port", str(port)]
            + ["--data-dir", str(data_dir)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError((Path(tmp) / "server.log").read_text()) from None
                    time.sleep(0.1)
            a, _ = add_token(data_dir, "acme", scopes=ALL_SCOPES)
            b, _ = add_token(data_dir, "globex", scopes=ALL_SCOPES)
            load(port, a, args.memories, rng)
            load(port, b, args.memories, rng)
            wait_embedded(data_dir)
            alone = timed_searches(port, b, args.queries, rng)
            stop, counts = threading.Event(), {}  # type: ignore[var-annotated]
            busy = [
                threading.Thread(
                    target=busy_tenant, args=(port, a, stop, counts, random.Random(i)), daemon=True
                )
                for i in range(args.clients)
            ]
            began = time.perf_counter()
            for thread in busy:
                thread.start()
            time.sleep(1.0)  # A is at full speed before B is measured
            beside: list[float] = []
            while time.perf_counter() - began < args.seconds or len(beside) < args.queries:
                beside += timed_searches(port, b, args.queries, rng)
                if len(beside) >= 5 * args.queries:
                    break
            stop.set()
            for thread in busy:
                thread.join(timeout=60)
            elapsed = time.perf_counter() - began
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()
    report = {
        "memories_per_tenant": args.memories,
        "clients_of_a": args.clients,
        "alone": summary(alone),
        "beside_a": summary(beside),
        "a_requests_per_second": round(sum(counts.values()) / elapsed, 1),
        "a_statuses": counts,
    }
    report["p50_ratio"] = round(report["beside_a"]["p50_ms"] / report["alone"]["p50_ms"], 2)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=200)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    if args.smoke:
        args.memories, args.queries, args.clients, args.seconds = 12, 20, 4, 4.0
    report = run(args)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
