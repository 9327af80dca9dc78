"""LongMemEval retrieval benchmark: load each question's haystack into the service, ask it.

    .venv/bin/python benchmarks/longmemeval.py --out /tmp/lme.json \
        [--mode hybrid|lexical|vector] [--layout sessions|one-session] [--questions N] \
        [--fact-keys none|rule] [--entity-links] [--resume FILE] \
        [--data FILE] [--url URL --token TOKEN] [--scorer PATH] [--keep-data] [--source DIR]

Data: `../shared/data/longmemeval_s_dev.json.gz` beside the repository by default (a plain
`.json` list of the same shape works too). Each question carries its own haystack: about 50
chat sessions of one user with an assistant, about 500 messages. The data is read from where it
lies and never copied into this repository; results files hold ids only.

Per question, one agent `<prefix>/<question_id>` keeping history (harness.history.index =
messages; the manifest's memory.search.mode = `--mode`; memory read_only, so no post-turn review
runs beside the load, unless `--fact-keys rule`: then every turn is reviewed by the server's
model (RuleBasedModel offline) and the facts proposed key the messages they cite
(fact_keys.py); the question waits for every review). Its haystack is loaded through the
service's own bulk route (`POST /v1/ingest`): one round (a user message and the assistant's
reply) is one committed turn, each event carrying its session's date as its `time`.

Layouts:
- `sessions` (default): each haystack session is a session of its own, and the question is
  asked with search_history reaching every session of the agent (harness.history.search =
  agent), from a turn of a session of its own.
- `one-session`: the whole haystack is one session, in order, and the question is asked with
  search_history from a turn after the last (the spec's default reach).

Each question is one turn calling search_history {query, limit 50} as the agent, rolled back;
each hit maps back to its haystack session and message. `--questions N` takes N questions
spread evenly over the question types (a quick run); `--mode lexical` starts the embedded server
with no embedder, so nothing is embedded.

A hybrid run of all 60 questions embeds for about two hours here, so `OUT` is rewritten after
each question (`meta.partial` until the end), and `--resume FILE` takes the questions FILE
already answered from it (a run of the same mode, layout and fact keys; an interrupted run's own
`OUT`, or a quick run's) and loads and asks only the others. The figures cover every question;
the load and latency figures only the questions this run asked.

Then the scorer runs (`lme_retrieval.py score`, beside the data by default) and this prints its
metrics overall and per question type, with BM25 over messages (the scorer's baseline) beside
them. `OUT` gets the scorer's results format plus a `meta` block; `OUT` with `.scores.json` in
place of `.json` gets the figures.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import fact_keys  # noqa: E402 - beside this file
from locomo import (  # noqa: E402 - beside this file
    ROOT,
    EmbeddedServer,
    add_embedding_cache,
    latency_summary,
    recreate_agent,
    wait_for_vectors,
)

from agent_memory.client import ApiError, Client  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "longmemeval_s_dev.json.gz"
SCORER_NAME = "lme_retrieval.py"
SEARCH_LIMIT = 50  # the most search_history returns at once; the scorer reads the top 10
LATENCY_LIMIT = 10
INGEST_BATCH = 500  # messages a /v1/ingest request
ASKING_SESSION = "questions"
ONE_SESSION = "haystack"
METRICS = ("S-any@5", "S-all@5", "S-nDCG@10", "T-rec@1", "T-rec@5", "T-rec@10")


# -- the data ----------------------------------------------------------------------------------


def load_questions(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as stream:  # type: ignore[operator]
        data: list[dict[str, Any]] = json.load(stream)
    return data


def spread(questions: list[dict[str, Any]], count: int | None) -> list[dict[str, Any]]:
    """`count` questions taken in turn from each question type (file order within a type)."""
    if count is None or count >= len(questions):
        return questions
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_type[q["question_type"]].append(q)
    chosen: list[dict[str, Any]] = []
    queues = [list(v) for v in by_type.values()]
    while len(chosen) < count:
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop(0))
    return chosen


def haystack_time(date: str) -> str:
    """`2023/05/20 (Sat) 02:21` -> `2023-05-20T02:21:00Z` (LongMemEval's dates carry no zone)."""
    day, _, clock = date.partition(")")
    moment = datetime.strptime(f"{day.split(' (')[0]} {clock.strip()}", "%Y/%m/%d %H:%M")
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def rounds(messages: list[dict[str, Any]]) -> list[list[tuple[int, dict[str, Any]]]]:
    """The session's messages as rounds (a turn each): a user message and the replies after it.
    Each message keeps its index in the session (what the scorer's `turn` names)."""
    out: list[list[tuple[int, dict[str, Any]]]] = []
    for index, message in enumerate(messages):
        if message["role"] == "user" or not out:
            out.append([])
        out[-1].append((index, message))
    return out


# -- loading -----------------------------------------------------------------------------------


def manifest(
    mode: str, layout: str, keys: str = "none", entity_links: bool = False
) -> dict[str, Any]:
    history: dict[str, Any] = {"index": "messages"}
    if layout == "sessions":
        history["search"] = "agent"
    if entity_links:  # history search follows the entities a question names
        history["entity_links"] = True
    return {
        "harness": {
            # Keys none: read_only, no post-turn review runs beside the load (it would only
            # take the CPU); rule: reviews every turn, whose facts key the messages.
            "memory": fact_keys.memory(keys, search={"mode": mode}),
            "history": fact_keys.history(keys, **history),
        }
    }


def haystack_sessions(question: dict[str, Any], layout: str) -> list[str]:
    """The service's sessions the haystack is loaded into."""
    if layout == "one-session":
        return [ONE_SESSION]
    return list(dict.fromkeys(question["haystack_session_ids"]))


Where = tuple[str, int, int]  # the service's session, turn sequence, event sequence


def ingest_messages(
    agent_id: str, question: dict[str, Any], layout: str
) -> tuple[list[dict[str, Any]], dict[Where, dict[str, Any]]]:
    """The haystack as ingestion messages, and where each message lands in the service (its
    session, turn and event sequences) -> the scorer's `{session_id, turn}`."""
    messages: list[dict[str, Any]] = []
    where: dict[Where, dict[str, Any]] = {}
    turn_sequence: dict[str, int] = defaultdict(int)
    for session_id, date, session in zip(
        question["haystack_session_ids"],
        question["haystack_dates"],
        question["haystack_sessions"],
        strict=True,
    ):
        target = ONE_SESSION if layout == "one-session" else session_id
        if turn_sequence[target] == 0:
            messages.append({"op": "session", "agent": agent_id, "session": target})
        moment = haystack_time(date)
        for number, said in enumerate(rounds(session)):
            turn_sequence[target] += 1
            turn = f"{session_id}-{number}"
            key = {"agent": agent_id, "session": target, "turn": turn}
            events = []
            for sequence, (index, message) in enumerate(said, start=1):
                if not message["content"].strip():
                    continue
                events.append(
                    {
                        "role": "user" if message["role"] == "user" else "assistant",
                        "text": message["content"],
                        "time": moment,
                        "sequence": sequence,
                    }
                )
                where[(target, turn_sequence[target], sequence)] = {
                    "session_id": session_id,
                    "turn": index,
                }
            messages.append({"op": "begin", **key})
            if events:
                messages.append({"op": "events", **key, "events": events})
            messages.append({"op": "commit", **key})
    return messages, where


def ingest(client: Client, messages: list[dict[str, Any]]) -> None:
    for start in range(0, len(messages), INGEST_BATCH):
        batch = messages[start : start + INGEST_BATCH]
        answer = client.ingest(batch)
        failed = [
            (m, r) for m, r in zip(batch, answer["results"], strict=True) if r["status"] == "failed"
        ]
        if failed:
            raise RuntimeError(f"{len(failed)} messages failed, the first: {failed[0]}")


# -- asking ------------------------------------------------------------------------------------


def ask(
    client: Client, agent_id: str, session_id: str, question: str, asked_at: str
) -> tuple[list[dict[str, Any]], float, float]:
    """The question's hits (limit 50, scored) and the seconds it took, then the seconds the
    same question took with limit 10 (what an agent asks for; the latency figure). The asking
    turn holds the question as its user message, said at the question's date: what `last
    Saturday` is relative to."""
    turn = client.begin_turn(agent_id, session_id)["id"]
    seconds: list[float] = []
    try:
        client.request(
            "POST",
            f"/v1/agents/{agent_id}/-/sessions/{session_id}/turns/{turn}/events",
            {"events": [{"role": "user", "text": question, "time": asked_at}]},
        )
        for limit in (SEARCH_LIMIT, LATENCY_LIMIT):
            started = time.perf_counter()
            output = client.call_tool(
                agent_id,
                session_id,
                turn,
                "search_history",
                caller={"role": "agent"},
                query=question,
                limit=limit,
            )
            seconds.append(time.perf_counter() - started)
            if limit == SEARCH_LIMIT:
                events: list[dict[str, Any]] = output.get("events", [])
    finally:
        client.rollback_turn(agent_id, session_id, turn)
    return events, seconds[0], seconds[1]


def system_name(args: argparse.Namespace) -> str:
    return (
        f"agent-memory search_history (mode={args.mode}, layout={args.layout}, "
        f"limit={SEARCH_LIMIT}, fact_keys={args.fact_keys}, entity_links={args.entity_links})"
    )


def answered(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """The rows `--resume FILE` already holds, by question id; {} without it.

    A file of another mode, layout or fact keys would mix two systems' figures: refused.
    """
    if args.resume is None:
        return {}
    if not args.resume.is_file():
        raise SystemExit(f"--resume {args.resume}: no such results file")
    earlier = json.loads(args.resume.read_text())
    meta = earlier.get("meta", {})
    for name in ("mode", "layout", "fact_keys", "entity_links"):
        # A file from before entity links ran with them off.
        held = meta.get(name, False if name == "entity_links" else None)
        if held != getattr(args, name):
            raise SystemExit(
                f"--resume {args.resume}: its {name} is {held!r}, "
                f"this run's {getattr(args, name)!r}"
            )
    return {row["question_id"]: row for row in earlier["results"]}


def checkpoint(args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    """Every row so far, in `OUT`, so an interrupted run can `--resume` from it."""
    partial = {
        "system": system_name(args),
        "results": rows,
        "meta": {
            "mode": args.mode,
            "layout": args.layout,
            "fact_keys": args.fact_keys,
            "entity_links": args.entity_links,
            "partial": True,
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    scratch = args.out.with_name(args.out.name + ".tmp")
    scratch.write_text(json.dumps(partial, indent=1))
    scratch.replace(args.out)  # never half a file, should the run be stopped while writing


def run(
    args: argparse.Namespace,
    client: Client,
    questions: list[dict[str, Any]],
    earlier: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    earlier = earlier or {}
    rows: list[dict[str, Any]] = [
        earlier[q["question_id"]] for q in questions if q["question_id"] in earlier
    ]
    resumed = len(rows)
    questions = [q for q in questions if q["question_id"] not in earlier]
    latencies: list[float] = []
    quick_latencies: list[float] = []
    load_seconds = 0.0
    review_seconds = 0.0
    loaded_events = 0
    unmapped = 0
    reviews: list[dict[str, Any]] = []
    keyed: list[dict[str, int | None]] = []
    for position, question in enumerate(questions, start=1):
        agent_id = f"{args.agent_prefix}/{question['question_id']}"
        started = time.perf_counter()
        recreate_agent(
            client, agent_id, manifest(args.mode, args.layout, args.fact_keys, args.entity_links)
        )
        messages, where = ingest_messages(agent_id, question, args.layout)
        ingest(client, messages)
        loaded = time.perf_counter() - started
        if args.fact_keys != "none":
            done, waited = fact_keys.wait_for_reviews(
                client, agent_id, haystack_sessions(question, args.layout)
            )
            reviews += done
            review_seconds += waited
        if args.mode != "lexical":
            # After the reviews: their key documents queue vectors too.
            wait_for_vectors(client, agent_id)
        keyed.append(fact_keys.key_figures(args.database, agent_id))
        load_seconds += loaded
        loaded_events += len(where)

        asking = ONE_SESSION
        if args.layout == "sessions":
            asking = client.create_session(agent_id, id=ASKING_SESSION)["id"]
        events, seconds, quick = ask(
            client,
            agent_id,
            asking,
            question["question"],
            haystack_time(question["question_date"]),
        )
        latencies.append(seconds)
        quick_latencies.append(quick)
        retrieved = []
        for event in events:
            session = event.get("session", asking)
            found = where.get((session, int(event["turn"]), int(event["sequence"])))
            if found is None:
                unmapped += 1
                continue
            retrieved.append(found)
        rows.append({"question_id": question["question_id"], "retrieved": retrieved})
        checkpoint(args, rows)
        if not args.keep_agents:
            client.delete_agent(agent_id)
        print(
            f"[{position}/{len(questions)}] {question['question_id']} "
            f"({question['question_type']}): {len(where)} events loaded in {loaded:.1f} s, "
            f"search {seconds * 1000:.0f} ms",
            flush=True,
        )
    return {
        "system": system_name(args),
        "results": rows,
        "meta": {
            "resumed_questions": resumed,
            "mode": args.mode,
            "layout": args.layout,
            "fact_keys": args.fact_keys,
            "entity_links": args.entity_links,
            "keys": fact_keys.summary(reviews, keyed),
            "review_wait_s": round(review_seconds, 2),
            "questions": len(rows),
            "asked_questions": len(rows) - resumed,
            "events": loaded_events,
            "load_s": round(load_seconds, 2),
            "load_events_per_s": round(loaded_events / load_seconds, 1) if load_seconds else None,
            "unmapped_hits": unmapped,
            "search_latency": latency_summary(latencies),
            "search_latency_limit_10": latency_summary(quick_latencies),
        },
    }


# -- scoring -----------------------------------------------------------------------------------


def load_scorer(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location("lme_retrieval", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # it imports locomo_retrieval beside it
    spec.loader.exec_module(module)
    return module


def figures(scorer: Any, questions: list[dict[str, Any]], results: list[dict[str, Any]]) -> Any:
    """The scorer's metrics averaged overall and per question type."""
    by_id = {r["question_id"]: r["retrieved"] for r in results}
    groups: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for q in questions:
        if q["question_id"].endswith("_abs"):
            continue  # the scorer skips abstention questions
        for metric, value in scorer.metrics(q, by_id.get(q["question_id"], [])).items():
            groups["all"][metric].append(value)
            groups[q["question_type"]][metric].append(value)
    return {
        name: {"n": len(values["S-any@5"]), **{m: statistics.fmean(values[m]) for m in METRICS}}
        for name, values in groups.items()
    }


def print_table(ours: dict[str, Any], bm25: dict[str, Any]) -> None:
    header = f"{'question type':<27} {'n':>3} " + " ".join(f"{m:>10}" for m in METRICS)
    print(header)
    for name in ["all", *sorted(k for k in ours if k != "all")]:
        row = ours[name]
        print(f"{name:<27} {row['n']:>3} " + " ".join(f"{row[m]:>10.3f}" for m in METRICS))
        base = bm25[name]
        print(f"{'  bm25':<27} {'':>3} " + " ".join(f"{base[m]:>10.3f}" for m in METRICS))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, required=True, help="results file (scorer format)")
    parser.add_argument("--mode", choices=["hybrid", "lexical", "vector"], default="hybrid")
    parser.add_argument("--layout", choices=["sessions", "one-session"], default="sessions")
    parser.add_argument("--questions", type=int, default=None, help="a quick run: N questions")
    parser.add_argument("--url", help="a running server (default: start an embedded one)")
    parser.add_argument("--token", help="its API token (default $AGENT_MEMORY_TOKEN)")
    parser.add_argument("--agent-prefix", default="lme", help="agents are <prefix>/<question_id>")
    parser.add_argument("--keep-agents", action="store_true", help="leave the agents loaded")
    parser.add_argument(
        "--scorer", type=Path, default=None, help=f"default: {SCORER_NAME} beside --data"
    )
    parser.add_argument("--keep-data", action="store_true", help="keep the embedded data dir")
    parser.add_argument(
        "--source",
        type=Path,
        default=None,
        help="serve agent_memory from this directory (default: this checkout's layers/core)",
    )
    parser.add_argument(
        "--fact-keys",
        choices=[c for c in fact_keys.CHOICES if c != "observations"],  # LoCoMo's alone
        default="none",
        help="none: no review runs; rule: a review every turn with the server's model "
        "(RuleBasedModel offline), whose facts key the messages they cite",
    )
    parser.add_argument(
        "--entity-links",
        action="store_true",
        help="turn on harness.history.entity_links (off by default)",
    )
    parser.add_argument(
        "--resume",
        type=Path,
        default=None,
        help="take the questions this results file already answered from it; ask the rest",
    )
    add_embedding_cache(parser)
    return parser.parse_args(argv)


def main() -> int:
    args = parse_args()

    data = args.data.resolve()
    scorer_path = (args.scorer or data.parent / SCORER_NAME).resolve()
    if not scorer_path.exists():
        scorer_path = DEFAULT_DATA.parent / SCORER_NAME
    scorer = load_scorer(scorer_path)
    questions = spread(load_questions(data), args.questions)
    earlier = answered(args)

    started = time.perf_counter()
    server = None
    if args.url:
        client = Client(args.url, args.token or os.environ.get("AGENT_MEMORY_TOKEN"), timeout=300.0)
    else:
        if args.mode == "lexical":
            os.environ["AGENT_MEMORY_EMBEDDINGS"] = "none"  # nothing to embed: words only
        server = EmbeddedServer(
            keep_data=args.keep_data, source=args.source, embedding_cache=args.embedding_cache
        ).start()
        client = server.client(timeout=300.0)
        print(f"embedded server {server.url} (data: {server.data_dir})", flush=True)
    args.database = server.database_path if server is not None else None
    try:
        result = run(args, client, questions, earlier)
    except ApiError:
        if server is not None:
            print(server.log_tail(), file=sys.stderr)
        raise
    finally:
        if server is not None:
            server.stop()
    meta = result["meta"]
    meta["wall_s"] = round(time.perf_counter() - started, 2)
    meta["data"] = str(data)
    ours = figures(scorer, questions, result["results"])
    bm25 = figures(scorer, questions, scorer.run_bm25(questions))
    meta["figures"] = ours
    meta["bm25"] = bm25
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    args.out.with_name(args.out.stem + ".scores.json").write_text(
        json.dumps({"ours": ours, "bm25": bm25}, indent=1)
    )

    print()
    print_table(ours, bm25)
    search, quick = meta["search_latency"], meta["search_latency_limit_10"]
    print(
        f"\nload: {meta['events']} events in {meta['load_s']:.1f} s "
        f"({meta['load_events_per_s']} events/s through /v1/ingest"
        f"{', every vector embedded' if args.mode != 'lexical' else ', words only'}); "
        f"unmapped hits {meta['unmapped_hits']}\n"
        f"search_history over HTTP: limit 50 p50 {search.get('p50_ms')} ms, p99 "
        f"{search.get('p99_ms')} ms; limit 10 p50 {quick.get('p50_ms')} ms, p99 "
        f"{quick.get('p99_ms')} ms ({meta['asked_questions']} questions asked by this run, "
        f"{meta['resumed_questions']} taken from --resume)"
    )
    keys = meta["keys"]
    print(
        f"fact keys {args.fact_keys}: {keys['reviews']} reviews ({keys['failed']} failed, "
        f"{keys['candidates']} facts proposed), {keys['key_documents']} key documents holding "
        f"{keys['keys']} facts; reviews waited for {meta['review_wait_s']:.1f} s in all"
    )
    print(f"results: {args.out}\nwall: {meta['wall_s']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
