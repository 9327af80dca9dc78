"""Load as a service sees it: requests arrive on their own schedule (an open loop), not when the
last one came back, at 25%, 50% and 75% of the capacity measured first.

    .venv/bin/python benchmarks/open_loop.py [--levels 0.25,0.5,0.75] [--seconds 60] \
        [--calibrate-seconds 20] [--capacity sustained|burst] [--ops-per-s N] [--out FILE] \
        [--smoke]

A closed loop (volume.py's 16 clients, each sending its next request when its last returns)
saturates two cores by construction and hides queueing: a slow answer also slows the arrivals.
Here arrivals are a Poisson process, so queueing shows in the latencies.

- The server: `agent-memory serve` (embedded, local embeddings) on a fresh data directory, one
  agent seeded with 100 agent-scope records and a history (volume.py's `seed`).
- The mix, per arrival: 25% a write (begin a turn, append two events, add_memory, commit),
  30% `search_memory` and 25% `search_history` (each one call in an open reader turn), 20%
  `GET` a record. The reads are one request each.
- Idle: each read alone, one at a time, nothing else running: its p50 is the yardstick.
- Capacity: 8 clients run the mix back to back (a closed loop) for `--calibrate-seconds`. The
  writes defer their vectors, so the closed loop's rate (`burst_ops_per_s`) is more than two
  cores sustain; the capacity the levels are shares of (`--capacity sustained`, the default)
  is the operations completed over the loop's time plus the time the embedder then takes to
  catch up (`--capacity burst` takes the loop's rate, as before).
- Each level: once the embedder has caught up with the writes before it (`drain_before_s`),
  and every one of a pool of sender threads has connected and begun its reader turn (untimed),
  arrivals at that share of the capacity for `--seconds`, each sent by the pool the moment it
  is due; `vectors_pending_after` says how far the embedder fell behind. Its latency runs from when it was due to when it was answered,
  so time spent waiting for a free sender counts (no coordinated omission).

The report: per level and per operation p50 / p99, the arrivals sent and missed (a sender pool
too small shows as lateness, reported as `late_p99_ms`), errors, and the figure the issue names:
each read's p99 at 50% over its idle p50 (at most 5 wanted).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "layers" / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import EmbeddedServer  # noqa: E402
from volume import MIXED, WORDS, load_uptime, ms, pending, seed  # noqa: E402

from agent_memory.client import Client  # noqa: E402

AGENT = "bench/open-loop"
READS = ("search_memory", "search_history", "get_record")
SENDERS = 64
MIX = (("write", 0.25), ("search_memory", 0.30), ("search_history", 0.25), ("get_record", 0.20))


class Workload:
    """The mix's operations, each on a client of the calling thread's own (keep-alive)."""

    def __init__(self, server: EmbeddedServer, seeded: dict[str, Any]) -> None:
        self._server = server
        self._records = seeded["records"]
        self._local = threading.local()
        setup = server.client()
        # Reads run in open turns of a reader session: a search stages nothing, so one turn
        # serves many (a turn per thread, made on first use).
        self._reader_session = seeded["session"]
        self._writer_session = setup.create_session(AGENT)["id"]
        setup.close()

    def _client(self) -> tuple[Client, str]:
        if not hasattr(self._local, "client"):
            client = self._server.client()
            self._local.client = client
            self._local.turn = client.begin_turn(AGENT, self._reader_session)["id"]
        return self._local.client, self._local.turn

    def warm(self) -> None:
        """This thread's client connected and its reader turn begun, before it is timed."""
        self._client()

    def run(self, op: str, rng: random.Random) -> None:
        client, turn = self._client()
        words = " ".join(rng.choice(WORDS) for _ in range(3))
        if op == "write":
            session = self._writer_session
            begun = client.begin_turn(AGENT, session)["id"]
            said = [
                {"role": "user", "text": " ".join(rng.choice(WORDS) for _ in range(20))},
                {"role": "assistant", "text": " ".join(rng.choice(WORDS) for _ in range(20))},
            ]
            client.append_events(AGENT, session, begun, said)
            client.call_tool(AGENT, session, begun, "add_memory", summary=words, scope="agent")
            client.commit_turn(AGENT, session, begun)
        elif op in ("search_memory", "search_history"):
            client.call_tool(AGENT, self._reader_session, turn, op, query=words)
        else:
            client.get_record(AGENT, rng.choice(self._records))


def pick(rng: random.Random) -> str:
    roll, total = rng.random(), 0.0
    for op, share in MIX:
        total += share
        if roll < total:
            return op
    return MIX[-1][0]


def idle(work: Workload, each: int) -> dict[str, Any]:
    """Each read alone, one at a time."""
    rng = random.Random(1)
    found = {}
    for op in READS:
        times = []
        for _ in range(each):
            t0 = time.perf_counter()
            work.run(op, rng)
            times.append(time.perf_counter() - t0)
        found[op] = ms(times)
    return found


def capacity(work: Workload, seconds: float, clients: int = 8) -> tuple[int, float]:
    """The operations the mix completes when `clients` send back to back for `seconds`, and
    the seconds it took."""
    done = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(n: int) -> None:
        rng = random.Random(100 + n)
        while time.monotonic() < stop:
            work.run(pick(rng), rng)
            with lock:
                done[0] += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return done[0], time.perf_counter() - started


def open_loop(work: Workload, rate: float, seconds: float, seed_: int) -> dict[str, Any]:
    """Poisson arrivals at `rate` a second for `seconds`; latency from due to answered."""
    timings: dict[str, list[float]] = defaultdict(list)
    late: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    rng = random.Random(seed_)

    def send(op: str, due: float, op_seed: int) -> None:
        started = time.perf_counter()
        try:
            work.run(op, random.Random(op_seed))
        except Exception as exc:  # noqa: BLE001 - reported, never hidden
            with lock:
                errors.append(f"{op}: {type(exc).__name__}: {exc}")
            return
        answered = time.perf_counter()
        with lock:
            timings[op].append(answered - due)
            late.append(started - due)

    with ThreadPoolExecutor(max_workers=SENDERS) as pool:
        # Every sender thread made, connected and given its reader turn before the first
        # arrival: a thread's first call would otherwise time its connection and its begin_turn
        # as the operation's (what the 25% level's tails were, right after the calibration).
        gathered = threading.Barrier(SENDERS)

        def warm() -> None:
            work.warm()
            gathered.wait(60)  # each warm-up holds its thread until all have one of their own

        for future in [pool.submit(warm) for _ in range(SENDERS)]:
            future.result()
        start = time.perf_counter()
        due = start
        sent = 0
        while True:
            due += rng.expovariate(rate)
            if due - start > seconds:
                break
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            pool.submit(send, pick(rng), due, rng.randrange(1 << 30))
            sent += 1
    answered = sum(len(v) for v in timings.values())
    return {
        "rate_per_s": round(rate, 1),
        "sent": sent,
        "answered": answered,
        "errors": errors[:5],
        "error_count": len(errors),
        "late_p99_ms": ms(late)["p99_ms"] if late else None,
        "ops": {op: ms(values) for op, values in sorted(timings.items())},
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    with EmbeddedServer() as server:
        setup = server.client()
        setup.put_agent(AGENT, MIXED)
        seeded = seed(setup, AGENT)
        work = Workload(server, seeded)
        alone = idle(work, args.idle_each)
        if args.ops_per_s:
            # A/B comparisons: both sides at the same rates, not each at its own capacity.
            ops_per_s = burst = sustained = args.ops_per_s
            caught_up = 0.0
        else:
            done, took = capacity(work, args.calibrate_seconds)
            caught_up = drain(setup)
            burst = done / took
            sustained = done / (took + caught_up)
            ops_per_s = sustained if args.capacity == "sustained" else burst
        levels = {}
        for level in args.levels:
            # Each level starts with the embedder caught up: the writes before it (the
            # calibration's, the last level's) queued vectors that would take CPU from it.
            drained = drain(setup)
            found = open_loop(work, level * ops_per_s, args.seconds, seed_=int(level * 100))
            levels[f"{level:.0%}"] = {
                **found,
                "drain_before_s": drained,
                "vectors_pending_after": pending(setup, AGENT),
            }
    half = levels.get("50%")
    ratios = (
        {
            op: round(half["ops"][op]["p99_ms"] / alone[op]["p50_ms"], 2)
            for op in READS
            if op in half["ops"] and alone[op]["p50_ms"]
        }
        if half
        else {}
    )
    return {
        "benchmark": "open_loop",
        "mix": dict(MIX),
        "idle": alone,
        "capacity": args.capacity,
        "capacity_ops_per_s": round(ops_per_s, 1),
        "burst_ops_per_s": round(burst, 1),
        "sustained_ops_per_s": round(sustained, 1),
        "embedder_caught_up_after_burst_s": caught_up,
        "levels": levels,
        "read_p99_at_50pct_over_idle_p50": ratios,
        "load_average": load_uptime(),
    }


def drain(client: Client, limit: float = 600.0) -> float:
    """Wait until nothing is left to embed; the seconds waited."""
    started = time.monotonic()
    while pending(client, AGENT) and time.monotonic() - started < limit:
        time.sleep(0.5)
    return round(time.monotonic() - started, 1)


def levels_arg(text: str) -> list[float]:
    values = [float(v) for v in text.split(",") if v]
    if not values or any(not 0 < v < 1 for v in values):
        raise argparse.ArgumentTypeError("levels are shares of the capacity, each between 0 and 1")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=levels_arg, default=levels_arg("0.25,0.5,0.75"))
    parser.add_argument("--seconds", type=float, default=60.0, help="each level's length")
    parser.add_argument("--calibrate-seconds", type=float, default=20.0)
    parser.add_argument(
        "--ops-per-s",
        type=float,
        help="the capacity the levels are shares of, instead of measuring it (for A/B runs)",
    )
    parser.add_argument(
        "--capacity",
        choices=("sustained", "burst"),
        default="sustained",
        help="what the levels are shares of: the rate with the embedder kept up, or the "
        "closed loop's rate alone",
    )
    parser.add_argument("--idle-each", type=int, default=50, help="idle calls of each read")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--smoke", action="store_true", help="seconds, for the test suite")
    args = parser.parse_args(argv)
    if args.smoke:
        args.seconds, args.calibrate_seconds, args.idle_each = 2.0, 2.0, 5
    report = run(args)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
