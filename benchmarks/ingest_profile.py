"""`POST /v1/ingest` in process: the embedded server's ingest path without HTTP or a second process.

    .venv/bin/python benchmarks/ingest_profile.py [--sessions 24] [--profile]
    valgrind --tool=cachegrind --cache-sim=no .venv/bin/python benchmarks/ingest_profile.py

Builds the embedded services on a fresh data directory (local embeddings queued, not run: the
background embedder is not started), puts an agent keeping history, and sends synthetic
sessions (20 turns of a user message and a reply each, as `volume.py ingest` writes them)
through the local gateway's WSGI callable in batches of 480 messages. The first batch warms the
caches and is not timed. Prints events a second; `--profile` adds cProfile's top functions.

On a shared machine time moves with the load; the instruction count of the whole run under
cachegrind does not, which is how RESULTS.md compares two commits (run each from a
`git archive` with `PYTHONPATH=<copy>/layers/core`, bytecode compiled first).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

from volume import HISTORY, WORDS  # noqa: E402 - beside this file

AGENT = "bench/ingest"
BATCH = 480  # messages a request, as the CLI's default batches of 500 hold whole turns
TOKEN = "bench-ingest-profile-token-0123456789"


def gateway(data_dir: Path) -> Any:
    os.environ["AGENT_MEMORY_DATA_DIR"] = str(data_dir)
    os.environ["AGENT_MEMORY_TOKEN"] = TOKEN
    from agent_memory.api.app import Api
    from agent_memory.bootstrap import build_services
    from agent_memory.local.gateway import LocalGateway
    from agent_memory.local.limits import RateLimiter
    from agent_memory.local.tokens import TokenBook
    from agent_memory.settings import Settings

    settings = Settings()
    tokens, _ = TokenBook.load(settings.data_dir, TOKEN)
    unlimited = RateLimiter(10**9, 10**9)
    return LocalGateway(
        Api(build_services(settings)),
        tokens,
        settings.tenant_claim,
        None,
        settings.roles_claim,
        per_token=unlimited,
        failed_auth=unlimited,
    )


def call(app: Any, method: str, path: str, body: Any = None) -> tuple[str, bytes]:
    raw = json.dumps(body).encode() if body is not None else b""
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "CONTENT_LENGTH": str(len(raw)),
        "CONTENT_TYPE": "application/json",
        "wsgi.input": io.BytesIO(raw),
        "HTTP_AUTHORIZATION": f"Bearer {TOKEN}",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "0",
        "wsgi.url_scheme": "http",
        "REMOTE_ADDR": "127.0.0.1",
    }
    status: list[str] = []
    answer = b"".join(app(environ, lambda s, _headers, _exc=None: status.append(s)))
    return status[0], answer


def messages(sessions: int) -> list[dict[str, Any]]:
    rng = random.Random(7)
    out: list[dict[str, Any]] = []
    for s in range(sessions):
        for t in range(20):
            base = {"agent": AGENT, "session": f"s{s}", "turn": f"s{s}-t{t}"}
            events = [
                {
                    "role": "user" if n == 0 else "assistant",
                    "text": " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40))),
                    "sequence": n + 1,
                }
                for n in range(2)
            ]
            out += [
                {"op": "begin", **base},
                {"op": "events", **base, "events": events},
                {"op": "commit", **base},
            ]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=24, help="sessions of 20 turns")
    parser.add_argument("--profile", action="store_true", help="cProfile the timed batches")
    args = parser.parse_args()

    app = gateway(Path(tempfile.mkdtemp(prefix="agent-memory-ingest-profile-")))
    status, answer = call(app, "PUT", f"/v1/agents/{AGENT}", HISTORY)
    if not status.startswith("201"):
        raise SystemExit(f"agent not made: {status} {answer[:300]!r}")
    feed = messages(args.sessions)
    batches = [feed[i : i + BATCH] for i in range(0, len(feed), BATCH)]
    if len(batches) < 2:
        raise SystemExit(
            f"--sessions {args.sessions} is one batch, all of it warming: ask for 9 or more"
        )
    profiler = cProfile.Profile()
    started = 0.0
    for n, batch in enumerate(batches):
        if n == 1:
            started = time.perf_counter()
            if args.profile:
                profiler.enable()
        status, answer = call(app, "POST", "/v1/ingest", {"messages": batch})
        if not status.startswith("200"):
            raise SystemExit(f"ingest refused: {status} {answer[:300]!r}")
    elapsed = time.perf_counter() - started
    profiler.disable()
    timed = sum(len(m.get("events", [])) for b in batches[1:] for m in b)
    rate = timed / elapsed if elapsed > 0 else 0.0
    print(f"{timed} events after the first batch in {elapsed:.2f} s: {rate:.0f} events/s")
    if args.profile:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
