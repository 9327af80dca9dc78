"""`agent-memory backup` of a large database while the server serves: how long it takes, and
what the requests made meanwhile see (p50/p99 against the same requests before it).

    nice .venv/bin/python benchmarks/backup.py [--size-mb 1024] [--clients 2] [--out FILE]
    .venv/bin/python benchmarks/backup.py --smoke --out FILE

The database is made by the service (an agent, file memories, a committed turn), then grown
to the size asked with copies of that turn's history event (random text, so the pages do not
compress away), written straight into its table in large transactions: backup time depends on
the pages copied, not on how they were written. Then `agent-memory serve` runs on it, client
threads read and write file memories over HTTP without pause, and after a quiet spell to
measure them alone `agent-memory backup` runs as an operator would run it. The backup is then
restored into a new directory and its files counted. Prints (and with --out writes) one JSON
object.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "layers" / "core"))

from agent_memory.bootstrap import build_services  # noqa: E402
from agent_memory.client import Client  # noqa: E402
from agent_memory.domain.agents.service import parse_manifest  # noqa: E402
from agent_memory.domain.history.service import AppendIn  # noqa: E402
from agent_memory.settings import Settings  # noqa: E402

AGENT = "bench/backup"
TENANT = "default"
MEMORIES = 50


def make_database(data_dir: Path, size_mb: int) -> int:
    """A database of about `size_mb` MB made as described above; its size in bytes."""
    settings = Settings(data_dir=data_dir, embeddings="none", extraction_model="none")
    services = build_services(settings, embedder=None, model=None)
    services.agents.put(
        TENANT, AGENT, parse_manifest({"harness": {"memory": {}, "history": {"index": "messages"}}})
    )
    for n in range(MEMORIES):
        services.files.put(TENANT, AGENT, f"notes/n{n}.md", f"note {n}\n", None, actor="bench")
    session = services.sessions.create(TENANT, AGENT, None, {})
    turn = services.sessions.begin_turn(TENANT, AGENT, session.id)
    events = [{"role": "user", "text": "the seed of the padding", "sequence": 1}]
    services.history.append(turn.ref, AppendIn.parse({"events": events}))
    services.sessions.commit(turn.ref)
    services.close()
    path = settings.database_path
    conn = sqlite3.connect(path, isolation_level=None)
    row = conn.execute("SELECT * FROM history_events").fetchone()
    columns = [c[1] for c in conn.execute("PRAGMA table_info(history_events)")]
    seed = dict(zip(columns, row, strict=True))
    doc = json.loads(seed["doc"])
    target = size_mb * 1024 * 1024
    n = 0
    while path.stat().st_size + _wal_size(path) < target:
        conn.execute("BEGIN")
        for _ in range(2000):
            n += 1
            doc["text"] = secrets.token_urlsafe(1500)
            values = {**seed, "event_id": f"pad{n:09d}", "sequence": n + 1, "doc": json.dumps(doc)}
            conn.execute(
                f"INSERT INTO history_events ({', '.join(columns)})"
                f" VALUES ({', '.join('?' * len(columns))})",
                [values[c] for c in columns],
            )
        conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path.stat().st_size


def _wal_size(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Load:
    """Client threads alternating a read and a write of a file memory, timing each."""

    def __init__(self, url: str, token: str, clients: int) -> None:
        self.samples: list[tuple[float, str, float]] = []  # (ended at, kind, seconds)
        self.errors: list[str] = []
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self.threads = [
            threading.Thread(target=self._run, args=(n, Client(url, token)), daemon=True)
            for n in range(clients)
        ]

    def _run(self, n: int, client: Client) -> None:
        k = 0
        while not self.stop.is_set():
            k += 1
            for kind in ("read", "write"):
                start = time.perf_counter()
                try:
                    if kind == "read":
                        client.agents.memories.get(AGENT, f"notes/n{k % MEMORIES}.md")
                    else:
                        client.agents.memories.put(AGENT, f"load/c{n}/m{k % 200}.md", f"{k}\n")
                except Exception as exc:  # counted and reported: the figure is wrong without them
                    self.errors.append(repr(exc))
                end = time.perf_counter()
                with self._lock:
                    self.samples.append((end, kind, end - start))

    def between(self, start: float, end: float) -> dict[str, Any]:
        with self._lock:
            got = [s for s in self.samples if start <= s[0] <= end]
        return {kind: summary([s[2] for s in got if s[1] == kind]) for kind in ("read", "write")}


def summary(seconds: list[float]) -> dict[str, Any]:
    if not seconds:
        return {"n": 0}
    ms = sorted(s * 1000 for s in seconds)
    return {
        "n": len(ms),
        "p50_ms": round(statistics.median(ms), 2),
        "p99_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 2),
        "max_ms": round(ms[-1], 2),
    }


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "core")}
    return subprocess.run(
        [sys.executable, "-m", "agent_memory.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )


def serve(data_dir: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "layers" / "core"),
        "AGENT_MEMORY_EMBEDDINGS": "none",
        "AGENT_MEMORY_EXTRACTION_MODEL": "none",
    }
    command = [sys.executable, "-m", "agent_memory.cli", "serve", "--port", str(port)]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command, "--data-dir", str(data_dir)], stdout=out, stderr=subprocess.STDOUT, env=env
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/openapi.json", timeout=1).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the server did not start: {log.read_text()[-2000:]}")


def run(size_mb: int, clients: int, quiet_seconds: float, work: Path) -> dict[str, Any]:
    data_dir = work / "data"
    made = time.monotonic()
    size = make_database(data_dir, size_mb)
    report: dict[str, Any] = {
        "database_mb": round(size / 2**20, 1),
        "made_in_s": round(time.monotonic() - made, 1),
        "clients": clients,
    }
    port = free_port()
    server = serve(data_dir, port, work / "server.log")
    try:
        token = (data_dir / "token").read_text().strip()
        load = Load(f"http://127.0.0.1:{port}", token, clients)
        for thread in load.threads:
            thread.start()
        time.sleep(quiet_seconds)
        before_start = time.perf_counter() - quiet_seconds
        started = time.perf_counter()
        done = json.loads(
            cli("backup", "--data-dir", str(data_dir), "--out", str(work / "b.tar")).stdout
        )
        ended = time.perf_counter()
        time.sleep(min(quiet_seconds, 2))
        load.stop.set()
        for thread in load.threads:
            thread.join(30)
        report["backup"] = {
            "seconds": round(ended - started, 2),
            "file_mb": round(done["bytes"] / 2**20, 1),
            "files": done["files"],
        }
        report["requests_before"] = load.between(before_start, started)
        report["requests_during"] = load.between(started, ended)
        report["errors"] = len(load.errors)
        report["error_examples"] = load.errors[:3]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)
    start = time.perf_counter()
    restored = json.loads(cli("restore", str(work / "b.tar"), "--data-dir", str(work / "r")).stdout)
    report["restore"] = {
        "seconds": round(time.perf_counter() - start, 2),
        "files": restored["files"],
    }
    conn = sqlite3.connect(work / "r" / "agent-memory.sqlite3")
    report["restore"]["history_events"] = conn.execute(
        "SELECT count(*) FROM history_events"
    ).fetchone()[0]
    conn.close()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--quiet-seconds", type=float, default=10.0)
    parser.add_argument("--smoke", action="store_true", help="5 MB, a short quiet spell")
    parser.add_argument(
        "--dir", help="where the data goes (default: a temp dir; put it on the disk to judge)"
    )
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    size, quiet = (5, 1.0) if args.smoke else (args.size_mb, args.quiet_seconds)
    with tempfile.TemporaryDirectory(dir=args.dir) as work:
        report = run(size, args.clients, quiet, Path(work))
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
