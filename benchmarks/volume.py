"""Volume: loading a real history, commits while the embedder works, many clients at once, and
bulk ingestion, against an embedded server (`agent-memory serve`, local embeddings).

    .venv/bin/python benchmarks/volume.py load [--data FILE] [--question N]
    .venv/bin/python benchmarks/volume.py commits [--turns 60]
    .venv/bin/python benchmarks/volume.py concurrency [--seconds 60] [--clients 16]
    .venv/bin/python benchmarks/volume.py ingest [--events 100000]

- `load`: one LongMemEval_S haystack (about 50 chat sessions, 500 messages, 115k tokens; the
  dev sample in ../shared/data/ by default, never copied here) written as a user imports it:
  `agent-memory ingest`'s loader (`POST /v1/ingest`, batches, four senders), each haystack
  session a session, each user message with the assistant's reply one committed turn (the
  session's date as the events' `time`). Reports the wall time until the history is
  searchable by words (every commit answered: the words index is written in the commit) and
  until every vector is there (`GET .../-/index` says nothing pending), beside the embedder's
  own time for the same texts (the model called in this process on exactly the texts the
  server queued, in batches of 32).
- `commits`: while the embedder works through such a history, `--turns` turns of 10 events
  (begin, append, commit); the commit's p50 / p99.
- `concurrency`: `--clients` clients at once for `--seconds`, each mixing reads
  (search_memory, search_history, GET record) and writes (a turn with events and add_memory,
  committed), then one client alone for the same mix; throughput and p50 / p99 per operation.
- `ingest`: a synthetic history of `--events` events (sessions of 20 turns of 2 events) written
  to a JSON Lines file and loaded with `agent-memory ingest` (the CLI, as a user runs it);
  events a second to searchable by words, and the CPU seconds the server and the CLI used.

Each prints one JSON object (`--out FILE` writes it too); RESULTS.md keeps the figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "layers" / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import EmbeddedServer  # noqa: E402

from agent_memory.bulk import Line, load  # noqa: E402
from agent_memory.client import Client  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "longmemeval_s_dev.json.gz"
HISTORY = {"harness": {"history": {"index": "messages"}}}
MIXED = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "tools": ["add_memory", "read_memory"],
        },
        "history": {"index": "messages"},
    }
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def ms(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 0.5) * 1000, 1),
        "p99_ms": round(percentile(values, 0.99) * 1000, 1),
    }


def load_uptime() -> str:
    return Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"


def process_cpu_s(pid: int) -> float | None:
    """CPU seconds (user and system) a process has used so far, from /proc (None elsewhere)."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return None
    fields = stat.read_text().rsplit(")", 1)[1].split()  # after the command's name
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_s() -> float:
    """CPU seconds the finished children of this process have used."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def pending(client: Client, agent: str) -> int:
    return int(client.request("GET", f"/v1/agents/{agent}/-/index")["pendingVectors"] or 0)


# -- LongMemEval as ingestion messages -------------------------------------------------------


def haystack(path: Path, question: int) -> dict[str, Any]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:  # type: ignore[operator]
        return json.load(f)[question]  # type: ignore[no-any-return]


def lme_time(date: str) -> str:
    """'2023/07/21 (Fri) 21:48' as ISO 8601 (UTC)."""
    day, _, clock = date.partition(" (")
    clock = clock.split(") ")[-1]
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M").isoformat() + "Z"


def history_messages(item: dict[str, Any], agent: str) -> list[dict[str, Any]]:
    """Each haystack session a session; each user message and the replies after it a turn."""
    messages: list[dict[str, Any]] = []
    for sid, date, session in zip(
        item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"], strict=True
    ):
        at = lme_time(date)
        rounds: list[list[dict[str, Any]]] = []
        for message in session:
            if message["role"] == "user" or not rounds:
                rounds.append([])
            rounds[-1].append(message)
        for n, turn in enumerate(rounds):
            base = {"agent": agent, "session": sid, "turn": f"{sid}-{n}"}
            events = [
                {"role": m["role"], "text": m["content"], "sequence": i + 1, "time": at}
                for i, m in enumerate(turn)
            ]
            messages += [
                {"op": "begin", **base},
                {"op": "events", **base, "events": events},
                {"op": "commit", **base},
            ]
    return messages


def as_lines(messages: list[dict[str, Any]]) -> list[Line]:
    return [
        Line(n, m, events=len(m.get("events", [])) if m["op"] == "events" else 0)
        for n, m in enumerate(messages, start=1)
    ]


def queued_texts(server: EmbeddedServer) -> list[str]:
    import sqlite3

    conn = sqlite3.connect(f"file:{server.database_path}?mode=ro", uri=True)
    try:
        return [row[0] for row in conn.execute("SELECT text FROM embed_queue ORDER BY qseq")]
    finally:
        conn.close()


def run_load(args: argparse.Namespace) -> dict[str, Any]:
    item = haystack(args.data, args.question)
    agent = "bench/volume"
    messages = history_messages(item, agent)
    lines = as_lines(messages)
    with EmbeddedServer() as server:
        client = server.client()
        client.put_agent(agent, HISTORY)
        started = time.perf_counter()
        done = load(client, lines)
        searchable = time.perf_counter() - started
        texts = queued_texts(server)  # what the embedder has still to do, at most all of it
        while pending(client, agent):
            time.sleep(0.1)
        embedded = time.perf_counter() - started
        usage = client.usage(agent)["totals"]
    own, tokens = embedder_time(texts if len(texts) > 0 else [])
    return {
        "benchmark": "load",
        "question": item["question_id"],
        "sessions": len(item["haystack_sessions"]),
        "events": done.done_events,
        "failed": done.counts["failed"],
        "searchable_by_words_s": round(searchable, 2),
        "every_vector_s": round(embedded, 2),
        "texts_queued_at_searchable": len(texts),
        "embedder_own_s_for_those_texts": round(own, 2),
        "tokens_embedded": tokens,
        "tokens_per_event": round(tokens / max(done.done_events, 1), 1),
        "usage_totals": usage,
        "load_average": load_uptime(),
    }


def embedder_time(texts: list[str]) -> tuple[float, int]:
    """The model's own time for `texts` in this process, in the server's batches of 32."""
    from agent_memory.adapters.embeddings.local import LocalEmbedder

    embedder = LocalEmbedder()
    embedder.embed(["warm up"])
    started = time.perf_counter()
    tokens = 0
    for i in range(0, len(texts), 32):
        tokens += embedder.embed(texts[i : i + 32]).input_tokens
    return time.perf_counter() - started, tokens


# -- commits while the embedder works ---------------------------------------------------------


def run_commits(args: argparse.Namespace) -> dict[str, Any]:
    item = haystack(args.data, args.question)
    agent = "bench/volume"
    with EmbeddedServer() as server:
        client = server.client()
        client.put_agent(agent, HISTORY)
        load(client, as_lines(history_messages(item, agent)))
        backlog = pending(client, agent)
        session = client.create_session(agent)["id"]
        commits, appends = [], []
        for t in range(args.turns):
            turn = client.begin_turn(agent, session)["id"]
            events = [
                {
                    "role": "user" if n % 2 == 0 else "assistant",
                    "text": f"turn {t} message {n} "
                    + " ".join(random.choice(WORDS) for _ in range(30)),
                }
                for n in range(10)
            ]
            t0 = time.perf_counter()
            client.append_events(agent, session, turn, events)
            t1 = time.perf_counter()
            client.commit_turn(agent, session, turn)
            t2 = time.perf_counter()
            appends.append(t1 - t0)
            commits.append(t2 - t1)
        still = pending(client, agent)
    return {
        "benchmark": "commits",
        "turns": args.turns,
        "events_per_turn": 10,
        "pending_vectors_before": backlog,
        "pending_vectors_after": still,
        "commit": ms(commits),
        "append": ms(appends),
        "load_average": load_uptime(),
    }


WORDS = (
    "release deploy tuesday violin garden tomato budget invoice customer ticket porto lisbon "
    "vim emacs python rust kubernetes cluster latency backup restore migration schema index "
    "holiday flight hotel museum recipe pasta coffee marathon training knee doctor"
).split()


# -- many clients at once -----------------------------------------------------------------------


def run_concurrency(args: argparse.Namespace) -> dict[str, Any]:
    with EmbeddedServer() as server:
        setup = server.client()
        agent = "bench/mixed"
        setup.put_agent(agent, MIXED)
        seeded = seed(setup, agent)
        alone = mix(server, agent, seeded, clients=1, seconds=args.seconds / 2)
        many = mix(server, agent, seeded, clients=args.clients, seconds=args.seconds)
    reads = ("search_memory", "search_history", "get_record")
    ratios = {
        op: round(many["ops"][op]["p99_ms"] / alone["ops"][op]["p50_ms"], 2)
        for op in reads
        if op in many["ops"] and op in alone["ops"] and alone["ops"][op]["p50_ms"]
    }
    return {
        "benchmark": "concurrency",
        "clients": args.clients,
        "seconds": args.seconds,
        "one_client": alone,
        "many_clients": many,
        "read_p99_under_load_over_p50_alone": ratios,
        "load_average": load_uptime(),
    }


def seed(client: Client, agent: str) -> dict[str, Any]:
    session = client.create_session(agent)["id"]
    records = []
    for batch in range(5):
        turn = client.begin_turn(agent, session)["id"]
        client.append_events(
            agent,
            session,
            turn,
            [{"role": "user", "text": " ".join(random.choice(WORDS) for _ in range(25))}],
        )
        for i in range(20):
            summary = f"fact {batch}-{i}: " + " ".join(random.choice(WORDS) for _ in range(8))
            out = client.call_tool(
                agent, session, turn, "add_memory", summary=summary, scope="agent"
            )
            records.append(out["memories"][0]["id"])
        client.commit_turn(agent, session, turn)
    while pending(client, agent):
        time.sleep(0.2)
    return {"session": session, "records": records}


def mix(
    server: EmbeddedServer, agent: str, seeded: dict[str, Any], clients: int, seconds: float
) -> dict[str, Any]:
    timings: dict[str, list[float]] = defaultdict(list)
    lock = threading.Lock()
    stop = time.monotonic() + seconds
    errors: list[str] = []

    def timed(op: str, call: Any, *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        result = call(*args, **kwargs)
        elapsed = time.perf_counter() - t0
        with lock:
            timings[op].append(elapsed)
        return result

    def worker(n: int) -> None:
        rng = random.Random(n)
        client = server.client()
        session = client.create_session(agent)["id"]
        reader_session = seeded["session"]
        try:
            while time.monotonic() < stop:
                roll = rng.random()
                if roll < 0.25:
                    turn = client.begin_turn(agent, session)["id"]
                    events = [
                        {"role": "user", "text": " ".join(rng.choice(WORDS) for _ in range(20))},
                        {
                            "role": "assistant",
                            "text": " ".join(rng.choice(WORDS) for _ in range(20)),
                        },
                    ]
                    timed("append", client.append_events, agent, session, turn, events)
                    summary = " ".join(rng.choice(WORDS) for _ in range(8))
                    timed(
                        "add_memory",
                        client.call_tool,
                        agent,
                        session,
                        turn,
                        "add_memory",
                        summary=summary,
                        scope="session",
                    )
                    timed("commit", client.commit_turn, agent, session, turn)
                elif roll < 0.55:
                    turn = client.begin_turn(agent, reader_session)["id"]
                    query = " ".join(rng.choice(WORDS) for _ in range(3))
                    timed(
                        "search_memory",
                        client.call_tool,
                        agent,
                        reader_session,
                        turn,
                        "search_memory",
                        query=query,
                    )
                    client.rollback_turn(agent, reader_session, turn)
                elif roll < 0.8:
                    turn = client.begin_turn(agent, reader_session)["id"]
                    query = " ".join(rng.choice(WORDS) for _ in range(3))
                    timed(
                        "search_history",
                        client.call_tool,
                        agent,
                        reader_session,
                        turn,
                        "search_history",
                        query=query,
                    )
                    client.rollback_turn(agent, reader_session, turn)
                else:
                    rid = rng.choice(seeded["records"])
                    timed("get_record", client.get_record, agent, rid)
        except Exception as exc:  # noqa: BLE001 - reported, never hidden
            with lock:
                errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    total = sum(len(v) for v in timings.values())
    return {
        "clients": clients,
        "operations_per_s": round(total / elapsed, 1),
        "ops": {op: ms(values) for op, values in sorted(timings.items())},
        "errors": errors[:5],
    }


# -- bulk ingestion through the CLI -------------------------------------------------------------


def run_ingest(args: argparse.Namespace) -> dict[str, Any]:
    agent = "bench/ingest"
    workdir = Path(tempfile.mkdtemp(prefix="agent-memory-ingest-"))
    feed = workdir / "history.jsonl"
    events = 0
    rng = random.Random(7)
    with feed.open("w") as f:
        session = 0
        while events < args.events:
            sid = f"s{session}"
            for t in range(20):
                base = {"agent": agent, "session": sid, "turn": f"{sid}-t{t}"}
                evs = [
                    {
                        "role": "user" if n == 0 else "assistant",
                        "text": " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40))),
                        "sequence": n + 1,
                    }
                    for n in range(2)
                ]
                for message in (
                    {"op": "begin", **base},
                    {"op": "events", **base, "events": evs},
                    {"op": "commit", **base},
                ):
                    f.write(json.dumps(message) + "\n")
                events += 2
            session += 1
    with EmbeddedServer() as server:
        server.client().put_agent(agent, HISTORY)
        env = {**os.environ, "AGENT_MEMORY_URL": server.url, "AGENT_MEMORY_TOKEN": server.token}
        assert server.process is not None
        server_cpu, cli_cpu = process_cpu_s(server.process.pid), children_cpu_s()
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "agent_memory.cli", "ingest", str(feed), *args.ingest_args],
            capture_output=True,
            text=True,
            env={**env, "PYTHONPATH": str(ROOT / "layers" / "core")},
            check=False,
        )
        elapsed = time.perf_counter() - started
        # Where the load's CPU went: the server (requests, and the embedder's model on the
        # other core) and the CLI. On a shared machine a rate moves with the hour; these say
        # whether the work moved too.
        server_after = process_cpu_s(server.process.pid)
        cpu = {
            "server_s": round(server_after - server_cpu, 1)
            if server_after is not None and server_cpu is not None
            else None,
            "cli_s": round(children_cpu_s() - cli_cpu, 1),
        }
        if result.returncode != 0:
            raise RuntimeError(result.stderr[-2000:])
        summary = json.loads(result.stdout)
        backlog = pending(server.client(), agent)
    return {
        "benchmark": "ingest",
        "events": events,
        "lines": sum(1 for _ in feed.open()),
        "wall_s": round(elapsed, 1),
        "events_per_s_to_searchable_by_words": round(events / elapsed),
        "cpu_s": cpu,
        "cli_summary": summary,
        "vectors_still_queued_at_end": backlog,
        "load_average": load_uptime(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["load", "commits", "concurrency", "ingest"])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--question", type=int, default=0, help="which haystack (index)")
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument(
        "--ingest-args",
        type=str.split,
        default=[],
        help="ingest: flags for agent-memory ingest, quoted",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    run = {
        "load": run_load,
        "commits": run_commits,
        "concurrency": run_concurrency,
        "ingest": run_ingest,
    }[args.what]
    result = run(args)
    result["measured_at"] = datetime.now().isoformat(timespec="seconds")
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
