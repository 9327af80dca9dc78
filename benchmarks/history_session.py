"""Session history at 10,000 events in one session, embedded: append throughput, commit and
search_history latency.

    .venv/bin/python benchmarks/history_session.py [--events 10000] [--per-turn 4] \
        [--queries 200] [--data FILE] [--out FILE]

An embedded server (`agent-memory serve`, a temporary data directory) gets one agent keeping
history (`messages_and_tools`) and one session. Each turn appends `--per-turn` events in one
call (a user message, the agent's reply calling a tool, the tool's result, the agent's answer,
cycling through LoCoMo's turns for their words) and commits (the commit embeds and indexes the
turn's events in its transaction). Then `--queries` LoCoMo questions are asked through
search_history (limit 10) from a turn after the last, rolled back. Reported: events/s of the
append calls alone and of the whole load (begin + append + commit), per-call p50/p99, and
search p50/p99 at the end, plus search p50 sampled while the session grew.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from locomo import (  # noqa: E402
    DEFAULT_DATA,
    EmbeddedServer,
    latency_summary,
    load_conversations,
    turn_path,
)

AGENT = "bench/history"
MANIFEST = {"harness": {"memory": {"enabled": False}, "history": {"index": "messages_and_tools"}}}


def turn_events(said: list[dict[str, Any]], n: int, per_turn: int) -> list[dict[str, Any]]:
    """The events of turn n: the words of LoCoMo turns, shaped as a harness's turn."""
    words = [said[(n * per_turn + i) % len(said)] for i in range(per_turn)]
    shapes: list[dict[str, Any]] = [
        {"role": "user"},
        {"role": "assistant", "tool_calls": [{"name": "lookup", "call_id": f"c{n}"}]},
        {"role": "tool_result", "tool_name": "lookup", "call_id": f"c{n}"},
        {"role": "assistant"},
    ]
    return [
        {
            **shapes[i % len(shapes)],
            "text": f"{w['speaker']}: {w['text']}",
            "metadata": {"dia_id": w["dia_id"]},
        }
        for i, w in enumerate(words)
    ]


def search(client: Any, session: str, questions: list[str]) -> list[float]:
    turn = client.begin_turn(AGENT, session)["id"]
    seconds = []
    try:
        for question in questions:
            t0 = time.perf_counter()
            client.call_tool(
                AGENT,
                session,
                turn,
                "search_history",
                caller={"role": "agent"},
                query=question,
                limit=10,
            )
            seconds.append(time.perf_counter() - t0)
    finally:
        client.rollback_turn(AGENT, session, turn)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--per-turn", type=int, default=4)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    conversations = load_conversations(args.data)
    said = [t for c in conversations for t in c["turns"] if t["text"].strip()]
    questions = [q["question"] for c in conversations for q in c["qa"]][: args.queries]
    turns = args.events // args.per_turn
    calls: dict[str, list[float]] = {"begin": [], "append": [], "commit": []}
    growing: dict[int, float] = {}
    started = time.perf_counter()
    with EmbeddedServer() as server:
        client = server.client()
        client.put_agent(AGENT, MANIFEST)
        session = client.create_session(AGENT)["id"]
        for n in range(turns):
            t0 = time.perf_counter()
            begun = client.begin_turn(AGENT, session)["id"]
            t1 = time.perf_counter()
            client.request(
                "POST",
                turn_path(AGENT, session, begun) + "/events",
                {"events": turn_events(said, n, args.per_turn)},
            )
            t2 = time.perf_counter()
            client.commit_turn(AGENT, session, begun)
            t3 = time.perf_counter()
            calls["begin"].append(t1 - t0)
            calls["append"].append(t2 - t1)
            calls["commit"].append(t3 - t2)
            events = (n + 1) * args.per_turn
            if events in (1_000, 2_500, 5_000) and events < args.events:
                growing[events] = round(
                    statistics.median(search(client, session, questions[:50])) * 1000, 2
                )
        loaded = time.perf_counter() - started
        final = search(client, session, questions)
    events = turns * args.per_turn
    result = {
        "events": events,
        "turns": turns,
        "per_turn": args.per_turn,
        "load_s": round(loaded, 1),
        "load_events_per_s": round(events / loaded, 1),
        "append_events_per_s": round(events / sum(calls["append"]), 1),
        "call_latency": {name: latency_summary(values) for name, values in calls.items()},
        "search_latency": latency_summary(final),
        "search_p50_ms_while_growing": growing,
    }
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
