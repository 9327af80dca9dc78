"""LoCoMo retrieval benchmark: load a conversation's memory into the service, ask its questions.

    .venv/bin/python benchmarks/locomo.py --target records --out /tmp/locomo-records.json \
        [--mode hybrid|lexical|vector] [--data FILE] [--url URL --token TOKEN] \
        [--limit-conversations N] [--scorer PATH] [--keep-data]

Data: `../shared/data/locomo_dev.json` beside the repository by default (any file in LoCoMo's
format works). The data is CC BY-NC 4.0: it is read from where it lies and never copied into
this repository; results files hold ids and questions only, written where `--out` says.

Targets (one function each in TARGETS; only `records` exists so far):

- `records`: per conversation (sample_id) one agent `locomo/<sample_id>` whose memory holds
  LoCoMo's generated `observation` facts as records (add_memory within turns of 20 writes; the
  service stages at most 24 writes a turn). Every QA of the conversation (category 5 included,
  so qa_index stays stable) is then one turn calling search_memory {query, limit 10} as the
  agent; each returned record maps back to the turns it cites ({"dia_ids": [...]}, from its
  `dia_ids` label). The query turns are rolled back (they write nothing).
- `history`, `extraction`: not implemented yet (search over the session transcript; records an
  extraction pass writes).

Without `--url` it starts its own embedded server (`python -m agent_memory.cli serve` on a free
port and a temporary data directory), reads the token from `<data-dir>/token`, and stops it with
SIGTERM at the end. With `--url` the agents `locomo/<sample_id>` on that server are deleted and
made again.

Then the scorer runs (`locomo_retrieval.py score`, beside the data by default) and this prints
turn recall@5, recall@10 and nDCG@10 overall and per category, with the load time and the
client-side search latency (HTTP included). `OUT` gets the scorer's results format (plus a
`meta` block); `OUT` with `.scores.json` in place of `.json` gets the scorer's summary.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("agent_memory") is None:  # not installed, and no --source put first
    sys.path.insert(0, str(ROOT / "layers" / "core"))

from agent_memory.client import ApiError, Client  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo_dev.json"
SCORER_NAME = "locomo_retrieval.py"
RECORDS_PER_TURN = 20  # the service stages at most 24 writes a turn
SUMMARY_MAX = 500
LABEL_MAX = 256
SEARCH_LIMIT = 10
_DIA = re.compile(r"D:?(\d+):(\d+)")
_SESSION_KEY = re.compile(r"session_(\d+)")
_OBSERVATION_KEY = re.compile(r"session_(\d+)_observation")


# -- the embedded server ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EmbeddedServer:
    """`agent-memory serve` as a subprocess on a free port and a temporary data directory.

    Its output goes to `<data-dir>/server.log` (a pipe nobody reads would fill and stall it).
    """

    def __init__(
        self, keep_data: bool = False, startup_timeout: float = 30.0, source: Path | None = None
    ) -> None:
        self.source = source or ROOT / "layers" / "core"
        self.data_dir = Path(tempfile.mkdtemp(prefix="agent-memory-bench-"))
        self.port = free_port()
        self.keep_data = keep_data
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self._log: Any = None
        self.token = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def database_path(self) -> Path:
        return self.data_dir / "agent-memory.sqlite3"

    def start(self) -> EmbeddedServer:
        self._log = open(self.data_dir / "server.log", "wb")  # noqa: SIM115 - closed by stop()
        env = {**os.environ, "PYTHONPATH": str(self.source)}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "agent_memory.cli",
                "serve",
                "--port",
                str(self.port),
                "--data-dir",
                str(self.data_dir),
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log_tail()
                self.stop()
                raise RuntimeError(f"the server exited at start:\n{tail}")
            try:
                urllib.request.urlopen(self.url + "/v1/openapi.json", timeout=1).close()
                self.token = (self.data_dir / "token").read_text().strip()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the server did not answer in {self.startup_timeout:.0f} s")

    def client(self, timeout: float = 120.0) -> Client:
        return Client(self.url, self.token, timeout=timeout)

    def index_docs(self) -> int | None:
        """Rows of the derived search index (`search_docs`), None when the schema has none:
        tells which search path served the run (index, or ranking the store's records)."""
        import sqlite3

        conn = sqlite3.connect(f"file:{self.database_path}?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT count(*) FROM search_docs").fetchone()[0])
        except sqlite3.Error:
            return None
        finally:
            conn.close()

    def log_tail(self, lines: int = 30) -> str:
        path = self.data_dir / "server.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None
        if not self.keep_data:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()


# -- the data ----------------------------------------------------------------------------------


def norm_dia_ids(raw: Any) -> list[str]:
    """Canonical turn ids from LoCoMo's evidence fields (lists, "D8:6; D9:17", "D:11:26", "D30:05")."""
    if raw is None:
        return []
    if isinstance(raw, list | tuple):
        return [d for item in raw for d in norm_dia_ids(item)]
    out = []
    for part in re.split(r"[;,\s]+", str(raw).strip()):
        match = _DIA.fullmatch(part)
        if match:
            out.append(f"D{int(match.group(1))}:{int(match.group(2))}")
    return out


def load_conversations(path: Path) -> list[dict[str, Any]]:
    """Per conversation: sample_id, its observations (with session, date, speaker, source
    turns) and its QA in file order (qa_index = position, category 5 included)."""
    conversations = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        valid = {
            turn["dia_id"]
            for key, turns in conv.items()
            if _SESSION_KEY.fullmatch(key) and isinstance(turns, list)
            for turn in turns
        }
        observations = []
        per_session = sample.get("observation", {})
        for key in sorted(
            per_session,
            key=lambda k: int(_OBSERVATION_KEY.match(k).group(1)),  # type: ignore[union-attr]
        ):
            number = int(_OBSERVATION_KEY.match(key).group(1))  # type: ignore[union-attr]
            date = conv.get(f"session_{number}_date_time", "")
            for speaker, facts in per_session[key].items():
                for fact, source in facts:
                    ids = [d for d in dict.fromkeys(norm_dia_ids(source)) if d in valid]
                    observations.append(
                        {
                            "session": number,
                            "date": date,
                            "speaker": speaker,
                            "text": fact,
                            "dia_ids": ids,
                        }
                    )
        qa = [
            {"qa_index": i, "question": q["question"], "category": int(q["category"])}
            for i, q in enumerate(sample["qa"])
        ]
        conversations.append(
            {"sample_id": sample["sample_id"], "observations": observations, "qa": qa}
        )
    return conversations


# -- the records target ------------------------------------------------------------------------


def records_manifest(mode: str) -> dict[str, Any]:
    return {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["agent"], "write": ["agent"]},
                "tools": ["add_memory"],
                "search": {"mode": mode, "max_results": SEARCH_LIMIT},
                "labels": {"dia_ids": {"number": 5, "description": "LoCoMo turns"}},
            }
        }
    }


def one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def label_value(dia_ids: list[str]) -> str:
    """The cited turns joined by spaces, cut at a space to fit a label value (<= 256)."""
    value = ""
    for dia_id in dia_ids:
        candidate = f"{value} {dia_id}".strip()
        if len(candidate) > LABEL_MAX:
            break
        value = candidate
    return value


def record_input(obs: dict[str, Any]) -> dict[str, Any]:
    """add_memory's input for one observation."""
    when = obs["date"] or "unknown date"
    # The cited turns travel in the dia_ids label, not in the text the record is found by.
    content = f"{when} (session {obs['session']}), {obs['speaker']}: {obs['text']}"
    labels = {"dia_ids": label_value(obs["dia_ids"])} if obs["dia_ids"] else {}
    return {
        "summary": one_line(obs["text"], SUMMARY_MAX),
        "content": content,
        "kind": "fact",
        "scope": "agent",
        "labels": labels,
    }


def cited_turns(record: dict[str, Any]) -> list[str]:
    """The turns a returned record cites: its label, or the content's `source turns:` line."""
    label = (record.get("labels") or {}).get("dia_ids")
    if label:
        return norm_dia_ids(label)
    match = re.search(r"^source turns: (.*)$", record.get("content") or "", re.MULTILINE)
    return norm_dia_ids(match.group(1)) if match else []


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def latency_summary(seconds: list[float]) -> dict[str, Any]:
    ms = [s * 1000 for s in seconds]
    if not ms:
        return {"n": 0}
    return {
        "n": len(ms),
        "p50_ms": round(statistics.median(ms), 2),
        "p90_ms": round(percentile(ms, 90), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "mean_ms": round(statistics.fmean(ms), 2),
        "max_ms": round(max(ms), 2),
    }


def recreate_agent(client: Client, agent_id: str, manifest: dict[str, Any]) -> None:
    try:
        client.delete_agent(agent_id)
    except ApiError as exc:
        if exc.status != 404:
            raise
    client.put_agent(agent_id, manifest)


def load_records(
    client: Client, agent_id: str, session_id: str, observations: list[dict[str, Any]]
) -> int:
    """add_memory every observation, committing a turn every RECORDS_PER_TURN records."""
    written = 0
    for start in range(0, len(observations), RECORDS_PER_TURN):
        turn = client.begin_turn(agent_id, session_id)["id"]
        try:
            for obs in observations[start : start + RECORDS_PER_TURN]:
                client.call_tool(
                    agent_id, session_id, turn, "add_memory", {"role": "agent"}, **record_input(obs)
                )
                written += 1
        except BaseException:
            client.rollback_turn(agent_id, session_id, turn)
            raise
        client.commit_turn(agent_id, session_id, turn)
    return written


def run_records(
    args: argparse.Namespace, client: Client, conversations: list[dict[str, Any]]
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    load_seconds = 0.0
    query_seconds = 0.0
    records = 0
    per_conversation = []
    for conv in conversations:
        agent_id = f"{args.agent_prefix}/{conv['sample_id']}"
        started = time.perf_counter()
        recreate_agent(client, agent_id, records_manifest(args.mode))
        session_id = client.create_session(agent_id, metadata={"benchmark": "locomo"})["id"]
        written = load_records(client, agent_id, session_id, conv["observations"])
        loaded = time.perf_counter() - started
        load_seconds += loaded
        records += written

        started = time.perf_counter()
        conv_latencies = []
        for qa in conv["qa"]:
            turn = client.begin_turn(agent_id, session_id)["id"]
            t0 = time.perf_counter()
            output = client.call_tool(
                agent_id,
                session_id,
                turn,
                "search_memory",
                {"role": "agent"},
                query=qa["question"],
                limit=SEARCH_LIMIT,
            )
            conv_latencies.append(time.perf_counter() - t0)
            client.rollback_turn(agent_id, session_id, turn)
            rows.append(
                {
                    "sample_id": conv["sample_id"],
                    "qa_index": qa["qa_index"],
                    "question": qa["question"],
                    "retrieved": [
                        {"dia_ids": cited_turns(r), "id": r.get("id")}
                        for r in output.get("records", [])
                    ],
                }
            )
        queried = time.perf_counter() - started
        query_seconds += queried
        latencies += conv_latencies
        per_conversation.append(
            {
                "sample_id": conv["sample_id"],
                "records": written,
                "questions": len(conv["qa"]),
                "load_s": round(loaded, 2),
                "search": latency_summary(conv_latencies),
            }
        )
        print(
            f"{conv['sample_id']}: {written} records loaded in {loaded:.1f} s, "
            f"{len(conv['qa'])} questions in {queried:.1f} s "
            f"(search p50 {statistics.median(conv_latencies) * 1000:.1f} ms)",
            flush=True,
        )
    return {
        "system": (
            f"agent-memory search_memory (mode={args.mode}, limit={SEARCH_LIMIT}) over LoCoMo "
            "observations loaded as records"
        ),
        "results": rows,
        "meta": {
            "target": "records",
            "mode": args.mode,
            "records": records,
            "questions": len(rows),
            "load_s": round(load_seconds, 2),
            "load_records_per_s": round(records / load_seconds, 1) if load_seconds else None,
            "query_phase_s": round(query_seconds, 2),
            "search_latency": latency_summary(latencies),
            "per_conversation": per_conversation,
        },
    }


def not_implemented(name: str, what: str) -> Callable[..., dict[str, Any]]:
    def run(*_args: Any) -> dict[str, Any]:
        raise SystemExit(f"locomo.py: --target {name} is not implemented yet ({what})")

    run.implemented = False  # type: ignore[attr-defined]
    return run


TARGETS: dict[str, Callable[..., dict[str, Any]]] = {
    "records": run_records,
    "history": not_implemented("history", "search over the sessions' transcripts"),
    "extraction": not_implemented("extraction", "records written by an extraction pass"),
}


# -- scoring and the report --------------------------------------------------------------------


def run_scorer(
    scorer: Path, data: Path, results: Path, scores: Path, samples: list[str]
) -> dict[str, Any]:
    command = [
        sys.executable,
        str(scorer),
        "score",
        "--data",
        str(data),
        "--results",
        str(results),
        "--json-out",
        str(scores),
        "--samples",
        ",".join(samples),
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    summary: dict[str, Any] = json.loads(scores.read_text())
    return summary


def print_report(summary: dict[str, Any], meta: dict[str, Any]) -> None:
    print()
    print(
        f"questions scored: {summary['n_questions']} (category 5 excluded; "
        f"skipped, empty evidence: {summary['skipped_empty_evidence']}; "
        f"missing: {summary['missing_results']}; "
        f"text mismatches: {summary['question_text_mismatches']})"
    )
    print(f"{'category':<16} {'n':>5} {'R@5':>7} {'R@10':>7} {'nDCG@10':>8} {'sessR@5':>8}")
    for name, row in summary["by_category"].items():
        print(
            f"{name:<16} {row['n']:>5} {row['turn_recall@5']:>7.3f} "
            f"{row['turn_recall@10']:>7.3f} {row['turn_ndcg@10']:>8.3f} "
            f"{row['sess_recall@5']:>8.3f}"
        )
    search = meta["search_latency"]
    print()
    print(
        f"load: {meta['records']} records in {meta['load_s']:.1f} s "
        f"({meta['load_records_per_s']} records/s, HTTP, {RECORDS_PER_TURN} a turn)"
    )
    print(
        f"search_memory over HTTP ({search['n']} questions): p50 {search['p50_ms']} ms, "
        f"p99 {search['p99_ms']} ms, mean {search['mean_ms']} ms, max {search['max_ms']} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", choices=sorted(TARGETS), default="records")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, required=True, help="results file (scorer format)")
    parser.add_argument("--mode", choices=["hybrid", "lexical", "vector"], default="hybrid")
    parser.add_argument("--url", help="a running server (default: start an embedded one)")
    parser.add_argument("--token", help="its API token (default $AGENT_MEMORY_TOKEN)")
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--agent-prefix", default="locomo", help="agents are <prefix>/<sample_id>")
    parser.add_argument(
        "--scorer", type=Path, default=None, help=f"default: {SCORER_NAME} beside --data"
    )
    parser.add_argument("--keep-data", action="store_true", help="keep the embedded data dir")
    parser.add_argument(
        "--source",
        type=Path,
        default=None,
        help="serve agent_memory from this directory (default: this checkout's layers/core; "
        "e.g. a `git archive HEAD` snapshot's layers/core to pin the code under test)",
    )
    args = parser.parse_args()

    run = TARGETS[args.target]
    if getattr(run, "implemented", True) is False:
        run()  # exits with its message before anything starts
    data = args.data.resolve()
    scorer = (args.scorer or data.parent / SCORER_NAME).resolve()
    if not scorer.exists():
        scorer = DEFAULT_DATA.parent / SCORER_NAME
    conversations = load_conversations(data)
    if args.limit_conversations is not None:
        conversations = conversations[: args.limit_conversations]

    started = time.perf_counter()
    server = None
    if args.url:
        client = Client(args.url, args.token, timeout=120.0)
    else:
        server = EmbeddedServer(keep_data=args.keep_data, source=args.source).start()
        client = server.client()
        print(f"embedded server {server.url} (data: {server.data_dir})", flush=True)
    try:
        result = run(args, client, conversations)
        if server is not None:
            result["meta"]["search_index_docs"] = server.index_docs()
    except ApiError:
        if server is not None:
            print(server.log_tail(), file=sys.stderr)
        raise
    finally:
        if server is not None:
            server.stop()
    result["meta"]["wall_s"] = round(time.perf_counter() - started, 2)
    result["meta"]["data"] = str(data)
    result["meta"]["source"] = (
        str(args.source or ROOT / "layers" / "core") if not args.url else None
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))

    scores = args.out.with_name(args.out.stem + ".scores.json")
    summary = run_scorer(scorer, data, args.out, scores, [c["sample_id"] for c in conversations])
    print_report(summary, result["meta"])
    print(f"\nresults: {args.out}\nscores:  {scores}\nwall: {result['meta']['wall_s']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
