"""The price of SQLite `synchronous=FULL` (the default) against `NORMAL`, on the writes a user
waits for: a file memory written through the management API, and a turn (begin, two history
events, commit). In process, no HTTP and no embeddings, so the fsync is most of what differs.

    .venv/bin/python benchmarks/synchronous.py [--writes 300] [--rounds 3] [--dir DIR]

The modes take turns, each round on a fresh database in the same directory (`--dir`: put it
on the disk to judge), so a busy machine slows both alike. Prints one JSON object: per mode,
p50 and p99 in milliseconds of each kind of write, over every round.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "layers" / "core"))

from agent_memory.bootstrap import build_services  # noqa: E402
from agent_memory.domain.agents.service import parse_manifest  # noqa: E402
from agent_memory.domain.history.service import AppendIn  # noqa: E402
from agent_memory.settings import Settings  # noqa: E402

AGENT = "bench/sync"


def one_round(directory: Path, mode: str, writes: int) -> dict[str, list[float]]:
    data = Path(tempfile.mkdtemp(dir=directory))
    settings = Settings(data_dir=data, sqlite_synchronous=mode, embeddings="none")
    services = build_services(settings, embedder=None, model=None)
    try:
        services.agents.put(
            "t", AGENT, parse_manifest({"harness": {"history": {"index": "messages"}}})
        )
        session = services.sessions.create("t", AGENT, None, {})
        timings: dict[str, list[float]] = {"memory_put": [], "turn": []}
        for n in range(writes):
            start = time.perf_counter()
            services.files.put("t", AGENT, f"notes/n{n}.md", f"note {n}\n", None, actor="bench")
            timings["memory_put"].append(time.perf_counter() - start)
            start = time.perf_counter()
            turn = services.sessions.begin_turn("t", AGENT, session.id)
            events = [
                {"role": "user", "text": f"question {n}", "sequence": 1},
                {"role": "assistant", "text": f"answer {n}", "sequence": 2},
            ]
            services.history.append(turn.ref, AppendIn.parse({"events": events}))
            services.sessions.commit(turn.ref)
            timings["turn"].append(time.perf_counter() - start)
        return timings
    finally:
        services.close()


def summary(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    return {
        "p50_ms": round(statistics.median(ms), 3),
        "p99_ms": round(ms[int(len(ms) * 0.99) - 1], 3),
        "n": len(ms),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", default=None, help="where the databases go (default: a temp dir)")
    args = parser.parse_args()
    directory = Path(args.dir or tempfile.mkdtemp())
    directory.mkdir(parents=True, exist_ok=True)
    kept: dict[str, dict[str, list[float]]] = {
        m: {"memory_put": [], "turn": []} for m in ("FULL", "NORMAL")
    }
    for _ in range(args.rounds):
        for mode in ("FULL", "NORMAL"):
            for kind, samples in one_round(directory, mode, args.writes).items():
                kept[mode][kind].extend(samples)
    print(
        json.dumps(
            {mode: {kind: summary(s) for kind, s in kinds.items()} for mode, kinds in kept.items()},
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
