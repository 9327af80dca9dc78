"""LoCoMo retrieval benchmark: load a conversation's memory into the service, ask its questions.

    .venv/bin/python benchmarks/locomo.py --target records --out /tmp/locomo-records.json \
        [--mode hybrid|lexical|vector] [--data FILE] [--url URL --token TOKEN] \
        [--limit-conversations N] [--scorer PATH] [--keep-data]
    .venv/bin/python benchmarks/locomo.py --target history --out /tmp/locomo-history.json \
        [--text-format dated|full-date|speaker|plain] [--captions] [--min-score X] \
        [--context-turns N] [--fact-keys none|rule|observations] [...]

Data: `../shared/data/locomo_dev.json` beside the repository by default (any file in LoCoMo's
format works). The data is CC BY-NC 4.0: it is read from where it lies and never copied into
this repository; results files hold ids and questions only, written where `--out` says.

Targets (one function each in TARGETS):

- `records`: per conversation (sample_id) one agent `locomo/<sample_id>` whose memory holds
  LoCoMo's generated `observation` facts as records (add_memory within turns of 20 writes; the
  service stages at most 24 writes a turn). Every QA of the conversation (category 5 included,
  so qa_index stays stable) is then one turn calling search_memory {query, limit 10} as the
  agent; each returned record maps back to the turns it cites ({"dia_ids": [...]}, from its
  `dia_ids` label). The query turns are rolled back (they write nothing).
- `history`: per conversation one agent `locomo/<sample_id>` keeping history
  (harness.history.index = messages) and one session holding the whole conversation: every
  LoCoMo turn is one committed turn with one `user` event (the speaker and the session's date in
  the text, `--text-format`; dia_id, session, date and speaker in its metadata). Every QA is then
  one turn after the last calling search_history {query, limit 10} as the agent, rolled back;
  each hit maps back to its dia_id through the turn sequence it was committed in.
  `--min-score` sets the manifest's memory.search.min_score (search_history's cosine floor for
  hits found by meaning alone); `--context-turns N`, an experiment, appends the N turns before
  each one to its event text. `--fact-keys` (fact_keys.py): `none` (default) runs no review;
  `rule` reviews every turn with the server's model (RuleBasedModel offline) and `observations`
  with a stub proposing LoCoMo's own observations (observations_stub.py, an upper bound), so
  the facts proposed key the turns they cite; the questions wait for every review and vector.
- `extraction`: per conversation one agent `locomo/<sample_id>` with memory on (agent scope,
  reviewed every turn) and no history index; each LoCoMo session is a session and each LoCoMo
  turn one committed turn with one `user` event (the words as said; speaker and dia_id in its
  metadata). The embedded server's worker reviews every committed turn with the configured
  model (RuleBasedModel offline); once the last review is done, every QA is one turn calling
  search_memory {query, limit 10}, each returned record mapping to the turns its review cited
  (provenance.sources). The meta block gets per-review figures (model calls, tokens, what each
  review did, queued-to-done seconds) and per conversation the twin share of its active
  records (twins.py: a record with another at cosine >= 0.90). Compare with `--target records` (LoCoMo's own generated
  observations as records), scored the same way.

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
import contextlib
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
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("agent_memory") is None:  # not installed, and no --source put first
    sys.path.insert(0, str(ROOT / "layers" / "core"))

# Beside this file (a script's directory is first on sys.path).
import fact_keys  # noqa: E402
import twins  # noqa: E402
from observations_stub import ObservationsServer  # noqa: E402

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


def add_embedding_cache(parser: argparse.ArgumentParser) -> None:
    """`--embedding-cache FILE`, for a benchmark that starts an EmbeddedServer."""
    parser.add_argument(
        "--embedding-cache",
        type=Path,
        default=None,
        help="the embedded server keeps each text's vector in this SQLite file and reuses it in "
        "later runs (benchmarks/embedding_cache.py): a ranking change re-measured in minutes",
    )


class EmbeddedServer:
    """`agent-memory serve` as a subprocess on a free port and a temporary data directory.

    Its output goes to `<data-dir>/server.log` (a pipe nobody reads would fill and stall it).
    """

    def __init__(
        self,
        keep_data: bool = False,
        startup_timeout: float = 30.0,
        source: Path | None = None,
        env: dict[str, str] | None = None,
        embedding_cache: Path | None = None,
    ) -> None:
        self.source = source or ROOT / "layers" / "core"
        self.env = env or {}
        # Served through benchmarks/embedding_cache.py: texts embedded by an earlier run are not
        # embedded again.
        self.embedding_cache = embedding_cache
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
        env = {**os.environ, **self.env, "PYTHONPATH": str(self.source)}
        launcher = (
            [sys.executable, "-m", "agent_memory.cli"]
            if self.embedding_cache is None
            else [
                sys.executable,
                str(Path(__file__).resolve().with_name("embedding_cache.py")),
                str(self.embedding_cache.resolve()),
            ]
        )
        self.process = subprocess.Popen(
            [
                *launcher,
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
    turns), its turns in session order (dia_id, session, date, speaker, text, caption) and its
    QA in file order (qa_index = position, category 5 included)."""
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
        turns = []
        for number in sorted(
            int(m.group(1))
            for key, value in conv.items()
            if (m := _SESSION_KEY.fullmatch(key)) and isinstance(value, list)
        ):
            date = conv.get(f"session_{number}_date_time", "")
            for position, turn in enumerate(conv[f"session_{number}"]):
                turns.append(
                    {
                        "dia_id": turn["dia_id"],
                        "session": number,
                        "date": date,
                        "time": said_at(date, position),
                        "speaker": turn["speaker"],
                        "text": turn.get("text", ""),
                        "caption": turn.get("blip_caption", ""),
                    }
                )
        qa = [
            {"qa_index": i, "question": q["question"], "category": int(q["category"])}
            for i, q in enumerate(sample["qa"])
        ]
        conversations.append(
            {
                "sample_id": sample["sample_id"],
                "observations": observations,
                "turns": turns,
                "qa": qa,
            }
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
    """The turns a returned record cites: its label (records loaded from observations), the
    messages its review took it from (extraction: provenance.sources), or the content's
    `source turns:` line."""
    label = (record.get("labels") or {}).get("dia_ids")
    if label:
        return norm_dia_ids(label)
    sources = (record.get("provenance") or {}).get("sources")
    if sources:
        return norm_dia_ids(sources)
    match = re.search(r"^source turns: (.*)$", record.get("content") or "", re.MULTILINE)
    return norm_dia_ids(match.group(1)) if match else []


def record_hits(output: dict[str, Any]) -> list[dict[str, Any]]:
    """search_memory's records as the scorer reads them."""
    return [{"dia_ids": cited_turns(r), "id": r.get("id")} for r in output.get("records", [])]


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


def ask(
    client: Client,
    agent_id: str,
    session_id: str,
    conv: dict[str, Any],
    tool: str,
    hits: Callable[[dict[str, Any]], list[dict[str, Any]]],
    asked_at: str | None = None,
) -> tuple[list[dict[str, Any]], list[float]]:
    """Every QA of the conversation as one turn calling `tool` {query, limit} as the agent,
    rolled back; the scorer's rows (`hits` maps the tool's output to retrieved items) and the
    seconds each call took. With `asked_at`, the turn first holds the question as its user
    message said then (what `last week` is relative to)."""
    rows: list[dict[str, Any]] = []
    seconds: list[float] = []
    for qa in conv["qa"]:
        turn = client.begin_turn(agent_id, session_id)["id"]
        if asked_at is not None:
            client.request(
                "POST",
                turn_path(agent_id, session_id, turn) + "/events",
                {"events": [{"role": "user", "text": qa["question"], "time": asked_at}]},
            )
        t0 = time.perf_counter()
        output = client.call_tool(
            agent_id,
            session_id,
            turn,
            tool,
            caller={"role": "agent"},
            query=qa["question"],
            limit=SEARCH_LIMIT,
        )
        seconds.append(time.perf_counter() - t0)
        client.rollback_turn(agent_id, session_id, turn)
        rows.append(
            {
                "sample_id": conv["sample_id"],
                "qa_index": qa["qa_index"],
                "question": qa["question"],
                "retrieved": hits(output),
            }
        )
    return rows, seconds


def wait_for_vectors(client: Client, agent_id: str, timeout: float = 3600.0) -> None:
    """Until the background embedder has embedded all the agent's documents (commits queue
    their vectors): the questions are asked of the whole index, words and meaning."""
    deadline = time.monotonic() + timeout
    while True:
        pending = client.request("GET", f"/v1/agents/{agent_id}/-/index").get("pendingVectors")
        if not pending:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{agent_id}: {pending} documents still wait for their vectors")
        time.sleep(0.2)


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
                    agent_id,
                    session_id,
                    turn,
                    "add_memory",
                    caller={"role": "agent"},
                    **record_input(obs),
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
        wait_for_vectors(client, agent_id)
        loaded = time.perf_counter() - started
        load_seconds += loaded
        records += written

        started = time.perf_counter()
        found, conv_latencies = ask(
            client,
            agent_id,
            session_id,
            conv,
            "search_memory",
            record_hits,
        )
        rows += found
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


# -- the history target -----------------------------------------------------------------------


TEXT_FORMATS = ("dated", "full-date", "speaker", "plain")


def history_manifest(
    min_score: float | None, keys: str = "none", entity_links: bool = False
) -> dict[str, Any]:
    """History kept as messages; with `keys` other than none, memory reviews every turn, so
    its proposed facts key the messages they cite (fact_keys.py); with `entity_links`, search
    follows the entities a question names (harness.history.entity_links)."""
    search = {"search": {"min_score": min_score}} if min_score is not None else {}
    history = fact_keys.history(keys, index="messages")
    if entity_links:
        history = {**history, "entity_links": True}
    return {"harness": {"memory": fact_keys.memory(keys, **search), "history": history}}


def said_at(date_time: str, position: int) -> str | None:
    """When a LoCoMo turn was said: its session's time (`1:56 pm on 8 May, 2023`), a second
    per turn after it, so turns keep their order; None when the date does not parse."""
    try:
        start = datetime.strptime(date_time.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None
    return (start + timedelta(seconds=position)).strftime("%Y-%m-%dT%H:%M:%SZ")


def session_day(date_time: str) -> str:
    """`1:56 pm on 8 May, 2023` -> `8 May, 2023` (the text as given when it has no " on ")."""
    return date_time.rsplit(" on ", 1)[-1].strip()


def event_text(
    turn: dict[str, Any],
    text_format: str,
    captions: bool,
    before: list[dict[str, Any]] | None = None,
) -> str:
    """What one LoCoMo turn says as a history event; search ranks this text only.

    dated: `[8 May, 2023] Caroline: text`; full-date: the session's time too
    (`[1:56 pm on 8 May, 2023] Caroline: ...`); speaker: `Caroline: text` (the scorer's BM25
    documents); plain: the text alone. `captions` appends a shared image's BLIP caption as
    `(shares a photo: ...)`. `before` (the experiment `--context-turns`) appends the turns just
    before it in its session as `(after Melanie: text)`: no longer the transcript as said.
    """
    text = " ".join(turn["text"].split())
    if captions and turn["caption"]:
        text = f"{text} (shares a photo: {turn['caption']})".strip()
    if before:
        said_before = " ".join(f"{t['speaker']}: {' '.join(t['text'].split())}" for t in before)
        text = f"{text} (after {said_before})"
    if text_format == "plain":
        return text
    said = f"{turn['speaker']}: {text}"
    if text_format == "speaker" or not turn["date"]:
        return said
    when = turn["date"] if text_format == "full-date" else session_day(turn["date"])
    return f"[{when}] {said}"


def event_input(
    turn: dict[str, Any],
    text_format: str,
    captions: bool,
    before: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The one event of a LoCoMo turn: the speaker as the user, the turn's ids as metadata."""
    metadata = {
        "dia_id": turn["dia_id"],
        "session": str(turn["session"]),
        "date": turn["date"],
        "speaker": turn["speaker"],
    }
    event = {
        "role": "user",
        "text": event_text(turn, text_format, captions, before),
        "metadata": {k: v for k, v in metadata.items() if v},
        "sequence": 1,
    }
    if turn.get("time"):
        event["time"] = turn["time"]
    return event


def turn_path(agent_id: str, session_id: str, turn_id: str) -> str:
    return f"/v1/agents/{agent_id}/-/sessions/{session_id}/turns/{turn_id}"


def load_history(
    client: Client,
    agent_id: str,
    session_id: str,
    turns: list[dict[str, Any]],
    text_format: str,
    captions: bool,
    context_turns: int = 0,
) -> tuple[dict[int, str], dict[str, list[float]]]:
    """One committed turn per LoCoMo turn (begin, append its event, commit). Returns the map
    turn sequence -> dia_id and the seconds each call took (begin, append, commit)."""
    by_sequence: dict[int, str] = {}
    timings: dict[str, list[float]] = {"begin": [], "append": [], "commit": []}
    for i, turn in enumerate(turns):
        before = [
            t for t in turns[max(0, i - context_turns) : i] if t["session"] == turn["session"]
        ]
        t0 = time.perf_counter()
        begun = client.begin_turn(agent_id, session_id)
        t1 = time.perf_counter()
        path = turn_path(agent_id, session_id, begun["id"])
        try:
            kept = client.request(
                "POST",
                path + "/events",
                {"events": [event_input(turn, text_format, captions, before)]},
            )
        except BaseException:
            client.rollback_turn(agent_id, session_id, begun["id"])
            raise
        if kept.get("kept") != 1:
            raise RuntimeError(f"{turn['dia_id']}: the event was not kept: {kept}")
        t2 = time.perf_counter()
        client.commit_turn(agent_id, session_id, begun["id"])
        t3 = time.perf_counter()
        timings["begin"].append(t1 - t0)
        timings["append"].append(t2 - t1)
        timings["commit"].append(t3 - t2)
        by_sequence[int(begun["sequence"])] = turn["dia_id"]
    return by_sequence, timings


def found_turn(event: dict[str, Any], by_sequence: dict[int, str]) -> dict[str, Any]:
    """A search_history hit as the scorer reads it: the dia_id of the turn it was committed in
    (an unknown turn keeps its rank and covers nothing)."""
    dia_id = by_sequence.get(int(event.get("turn", -1)))
    hit: dict[str, Any] = {"dia_id": dia_id} if dia_id else {"dia_ids": []}
    hit.update(turn=event.get("turn"), id=event.get("id"))
    return hit


def run_history(
    args: argparse.Namespace, client: Client, conversations: list[dict[str, Any]]
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    calls: dict[str, list[float]] = {"begin": [], "append": [], "commit": []}
    load_seconds = 0.0
    query_seconds = 0.0
    review_seconds = 0.0
    events = 0
    per_conversation = []
    reviews: list[dict[str, Any]] = []
    keyed: list[dict[str, int | None]] = []
    for conv in conversations:
        agent_id = f"{args.agent_prefix}/{conv['sample_id']}"
        if args.observations is not None:
            # Only now: the last conversation's reviews are all done (its dia_ids repeat here).
            args.observations.serve(conv["observations"])
        started = time.perf_counter()
        recreate_agent(
            client, agent_id, history_manifest(args.min_score, args.fact_keys, args.entity_links)
        )
        session_id = client.create_session(agent_id, metadata={"benchmark": "locomo"})["id"]
        by_sequence, timings = load_history(
            client,
            agent_id,
            session_id,
            conv["turns"],
            args.text_format,
            args.captions,
            args.context_turns,
        )
        loaded = time.perf_counter() - started
        conv_reviews, waited = (
            fact_keys.wait_for_reviews(client, agent_id, [session_id])
            if args.fact_keys != "none"
            else ([], 0.0)
        )
        # After the reviews: their key documents queue vectors too.
        wait_for_vectors(client, agent_id)
        reviews += conv_reviews
        keyed.append(fact_keys.key_figures(args.database, agent_id))
        load_seconds += loaded
        review_seconds += waited
        events += len(by_sequence)
        for name, values in timings.items():
            calls[name] += values

        started = time.perf_counter()
        found, conv_latencies = ask(
            client,
            agent_id,
            session_id,
            conv,
            "search_history",
            lambda out, seen=by_sequence: [found_turn(e, seen) for e in out.get("events", [])],
            # Asked after the conversation's last turn.
            max((t["time"] for t in conv["turns"] if t.get("time")), default=None),
        )
        rows += found
        queried = time.perf_counter() - started
        query_seconds += queried
        latencies += conv_latencies
        per_conversation.append(
            {
                "sample_id": conv["sample_id"],
                "events": len(by_sequence),
                "questions": len(conv["qa"]),
                "load_s": round(loaded, 2),
                "reviews": len(conv_reviews),
                "review_wait_s": round(waited, 2),
                **keyed[-1],
                "search": latency_summary(conv_latencies),
            }
        )
        print(
            f"{conv['sample_id']}: {len(by_sequence)} turns loaded in {loaded:.1f} s, "
            + (
                f"{len(conv_reviews)} reviews done {waited:.1f} s later, "
                f"{keyed[-1]['key_documents']} key documents; "
                if args.fact_keys != "none"
                else ""
            )
            + f"{len(conv['qa'])} questions in {queried:.1f} s "
            f"(search p50 {statistics.median(conv_latencies) * 1000:.1f} ms)",
            flush=True,
        )
    append_seconds = sum(calls["append"])
    return {
        "system": (
            f"agent-memory search_history (hybrid, limit={SEARCH_LIMIT}, "
            f"min_score={args.min_score}) over LoCoMo turns as one session, one committed turn "
            f"each (text={args.text_format}, captions={args.captions}, "
            f"context_turns={args.context_turns}, fact_keys={args.fact_keys}, "
            f"entity_links={args.entity_links})"
        ),
        "results": rows,
        "meta": {
            "target": "history",
            "text_format": args.text_format,
            "captions": args.captions,
            "context_turns": args.context_turns,
            "min_score": args.min_score,
            "fact_keys": args.fact_keys,
            "entity_links": args.entity_links,
            "keys": fact_keys.summary(reviews, keyed),
            "review_wait_s": round(review_seconds, 2),
            "events": events,
            "questions": len(rows),
            "load_s": round(load_seconds, 2),
            "load_events_per_s": round(events / load_seconds, 1) if load_seconds else None,
            "append_events_per_s": round(events / append_seconds, 1) if append_seconds else None,
            "call_latency": {name: latency_summary(values) for name, values in calls.items()},
            "query_phase_s": round(query_seconds, 2),
            "search_latency": latency_summary(latencies),
            "per_conversation": per_conversation,
        },
    }


# -- the extraction target ---------------------------------------------------------------------


def extraction_manifest(mode: str) -> dict[str, Any]:
    """Memory on, agent scope (a record found from any session), reviewed every turn; no
    history index (the messages are kept for the review only)."""
    return {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["agent"], "write": ["agent"]},
                "search": {"mode": mode, "max_results": SEARCH_LIMIT},
                "extraction": {"every": "turn"},
            }
        }
    }


def review_event(turn: dict[str, Any], captions: bool) -> dict[str, Any]:
    """A LoCoMo turn as the message its harness would append: the words as said (the
    speaker in metadata, which the review reads as the message's speaker)."""
    text = " ".join(turn["text"].split())
    if captions and turn["caption"]:
        text = f"{text} (shares a photo: {turn['caption']})".strip()
    metadata = {"dia_id": turn["dia_id"], "speaker": turn["speaker"], "date": turn["date"]}
    return {"role": "user", "text": text, "metadata": {k: v for k, v in metadata.items() if v}}


def wait_for_reviews(
    client: Client, agent_id: str, last: tuple[str, str], timeout: float = 3600.0
) -> float:
    """Seconds until the last committed turn's review ended (the worker takes them in order)."""
    started = time.perf_counter()
    deadline = started + timeout
    while True:
        review = client.get_turn(agent_id, *last).get("extraction") or {}
        if review.get("status") in ("done", "failed", None):
            return time.perf_counter() - started
        if time.perf_counter() > deadline:
            raise RuntimeError(f"reviews did not finish in {timeout} s: {review}")
        time.sleep(0.1)


def _run_seconds(run: dict[str, Any]) -> float | None:
    started, finished = run.get("startedAt"), run.get("finishedAt")
    if not started or not finished:
        return None
    parse = datetime.fromisoformat
    return round((parse(finished) - parse(started)).total_seconds(), 2)


def run_extraction(
    args: argparse.Namespace, client: Client, conversations: list[dict[str, Any]]
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    reviews: list[dict[str, Any]] = []
    load_seconds = review_wait = query_seconds = 0.0
    records_total = 0
    per_conversation = []
    # Twins are counted within each agent (one a conversation); the overall share sums them.
    embedder: Any = None
    twin_total = 0
    for conv in conversations:
        agent_id = f"{args.agent_prefix}/{conv['sample_id']}"
        started = time.perf_counter()
        recreate_agent(client, agent_id, extraction_manifest(args.mode))
        sessions: dict[int, str] = {}
        committed: list[tuple[str, str]] = []
        for turn in conv["turns"]:
            if turn["session"] not in sessions:
                sessions[turn["session"]] = client.create_session(
                    agent_id, metadata={"benchmark": "locomo", "session": str(turn["session"])}
                )["id"]
            session_id = sessions[turn["session"]]
            begun = client.begin_turn(agent_id, session_id)["id"]
            client.append_events(agent_id, session_id, begun, [review_event(turn, args.captions)])
            client.commit_turn(agent_id, session_id, begun)
            committed.append((session_id, begun))
        wait_for_vectors(client, agent_id)
        loaded = time.perf_counter() - started
        waited = wait_for_reviews(client, agent_id, committed[-1])
        load_seconds += loaded
        review_wait += waited
        conv_reviews = [
            r
            for session_id, turn_id in committed
            if (r := client.get_turn(agent_id, session_id, turn_id).get("extraction"))
        ]
        reviews += conv_reviews
        consolidated = None
        if args.consolidate:
            run = client.agents.consolidate(agent_id)
            consolidated = {"counts": run["counts"], "seconds": _run_seconds(run)}
        summaries: list[str] = []
        cursor = None
        while True:
            page = client.list_records(agent_id, limit=200, cursor=cursor)
            summaries += [r["summary"] for r in page["records"]]
            cursor = page["next"]
            if cursor is None:
                break
        count = len(summaries)
        records_total += count
        if embedder is None:
            embedder = twins.local_embedder()
        twin = twins.twin_share(summaries, embedder)

        query_session = client.create_session(agent_id, metadata={"benchmark": "questions"})["id"]
        started = time.perf_counter()
        found, conv_latencies = ask(
            client,
            agent_id,
            query_session,
            conv,
            "search_memory",
            record_hits,
        )
        rows += found
        queried = time.perf_counter() - started
        query_seconds += queried
        latencies += conv_latencies
        per_conversation.append(
            {
                "sample_id": conv["sample_id"],
                "turns": len(committed),
                "reviews": len(conv_reviews),
                "records": count,
                "twins": twin,
                "consolidated": consolidated,
                "load_s": round(loaded, 2),
                "review_wait_s": round(waited, 2),
                "search": latency_summary(conv_latencies),
            }
        )
        print(
            f"{conv['sample_id']}: {len(committed)} turns committed in {loaded:.1f} s, "
            f"reviews done {waited:.1f} s later, {count} active records "
            f"({twin['share']:.1%} with a twin at cosine >= {twins.TWIN_AT}); "
            f"{len(conv['qa'])} questions in {queried:.1f} s",
            flush=True,
        )
        twin_total += twin["twins"]
    return {
        "system": (
            f"agent-memory search_memory (mode={args.mode}, limit={SEARCH_LIMIT}) over the "
            "records post-turn extraction wrote from LoCoMo's turns (one committed turn each, "
            "reviewed every turn by the configured model)"
        ),
        "results": rows,
        "meta": {
            "target": "extraction",
            "mode": args.mode,
            "captions": args.captions,
            "turns": sum(c["turns"] for c in per_conversation),
            "records": records_total,
            "twin_share": round(twin_total / records_total, 4) if records_total else 0.0,
            "questions": len(rows),
            "load_s": round(load_seconds, 2),
            "review_wait_s": round(review_wait, 2),
            "query_phase_s": round(query_seconds, 2),
            "search_latency": latency_summary(latencies),
            "per_review": review_figures(reviews),
            "per_conversation": per_conversation,
        },
    }


def review_figures(reviews: list[dict[str, Any]]) -> dict[str, Any]:
    """Per reviewed turn: model calls, tokens, what it did, and how long it took."""
    done = [r for r in reviews if r["status"] == "done"]
    if not done:
        return {"reviews": len(reviews), "done": 0}

    def spread(values: list[float]) -> dict[str, float]:
        return {
            "mean": round(statistics.fmean(values), 2),
            "p50": round(statistics.median(values), 2),
            "max": round(max(values), 2),
        }

    seconds = [
        (
            datetime.fromisoformat(r["endedAt"]) - datetime.fromisoformat(r["queuedAt"])
        ).total_seconds()
        for r in done
    ]
    return {
        "reviews": len(reviews),
        "done": len(done),
        "failed": sum(r["status"] == "failed" for r in reviews),
        "model_calls": spread([r["modelCalls"] for r in done]),
        "input_tokens": spread([r["inputTokens"] for r in done]),
        "output_tokens": spread([r["outputTokens"] for r in done]),
        "candidates": spread([r["candidates"] or 0 for r in done]),
        "added": sum(r["added"] for r in done),
        "replaced": sum(r["replaced"] for r in done),
        "deleted": sum(r["deleted"] for r in done),
        "skipped": sum(r["skipped"] for r in done),
        "dropped": sum(len(r["dropped"]) for r in done),
        "queued_to_done_s": spread(seconds),
    }


TARGETS: dict[str, Callable[..., dict[str, Any]]] = {
    "records": run_records,
    "history": run_history,
    "extraction": run_extraction,
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
    if meta["target"] == "history":
        calls = meta["call_latency"]
        print(
            f"load: {meta['events']} turns in {meta['load_s']:.1f} s "
            f"({meta['load_events_per_s']} events/s, HTTP, begin + append + commit a turn; "
            f"append calls alone {meta['append_events_per_s']} events/s)"
        )
        print(
            "per call p50 / p99 ms: "
            + ", ".join(
                f"{name} {calls[name]['p50_ms']} / {calls[name]['p99_ms']}"
                for name in ("begin", "append", "commit")
            )
        )
        keys = meta["keys"]
        print(
            f"fact keys {meta['fact_keys']}: {keys['reviews']} reviews ({keys['failed']} failed, "
            f"{keys['candidates']} facts proposed), {keys['key_documents']} key documents "
            f"holding {keys['keys']} facts; the last review done {meta['review_wait_s']:.1f} s "
            "after the loads (summed over conversations)"
        )
        tool = "search_history"
    elif meta["target"] == "extraction":
        per = meta["per_review"]
        print(
            f"load: {meta['turns']} turns committed in {meta['load_s']:.1f} s; the last review "
            f"done {meta['review_wait_s']:.1f} s after the last commit; {meta['records']} "
            f"active records, {meta['twin_share']:.1%} of them with a twin (cosine >= "
            f"{twins.TWIN_AT})"
        )
        if per.get("done"):
            print(
                f"per review ({per['done']} done, {per['failed']} failed): model calls mean "
                f"{per['model_calls']['mean']} max {per['model_calls']['max']}; tokens in "
                f"{per['input_tokens']['mean']} out {per['output_tokens']['mean']} (mean); "
                f"queued to done p50 {per['queued_to_done_s']['p50']} s"
            )
            print(
                f"decisions: added {per['added']}, replaced {per['replaced']}, deleted "
                f"{per['deleted']}, skipped {per['skipped']}, dropped {per['dropped']}"
            )
        tool = "search_memory"
    else:
        print(
            f"load: {meta['records']} records in {meta['load_s']:.1f} s "
            f"({meta['load_records_per_s']} records/s, HTTP, {RECORDS_PER_TURN} a turn)"
        )
        tool = "search_memory"
    print(
        f"{tool} over HTTP ({search['n']} questions): p50 {search['p50_ms']} ms, "
        f"p99 {search['p99_ms']} ms, mean {search['mean_ms']} ms, max {search['max_ms']} ms"
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", choices=sorted(TARGETS), default="records")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, required=True, help="results file (scorer format)")
    parser.add_argument(
        "--mode",
        choices=["hybrid", "lexical", "vector"],
        default="hybrid",
        help="records: the manifest's search.mode (search_history always ranks hybrid)",
    )
    parser.add_argument(
        "--text-format",
        choices=TEXT_FORMATS,
        default="dated",
        help="history: each event's text (default dated: `[8 May, 2023] Caroline: text`)",
    )
    parser.add_argument(
        "--captions",
        action="store_true",
        help="history and extraction: append shared images' captions (the scorer's bm25 "
        "default leaves them out)",
    )
    parser.add_argument(
        "--context-turns",
        type=int,
        default=0,
        help="history, an experiment: append the N turns before each one (same session) to its "
        "event text, `(after Melanie: ...)` (default 0: the transcript as said)",
    )
    parser.add_argument(
        "--min-score",
        type=float,
        default=None,
        help="history: the manifest's memory.search.min_score (the cosine floor for hits "
        "found by meaning alone; unset: the service default)",
    )
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
    parser.add_argument(
        "--fact-keys",
        choices=fact_keys.CHOICES,
        default="none",
        help="history: what keys messages by the facts reviews propose from them: none (no "
        "review runs), rule (a review every turn with the server's model, RuleBasedModel "
        "offline), observations (reviews proposing LoCoMo's own observations: an upper bound; "
        "the embedded server only)",
    )
    parser.add_argument(
        "--entity-links",
        action="store_true",
        help="history: turn on harness.history.entity_links (a question's entities pull in the "
        "events that mention them, and a second hop; off by default)",
    )
    parser.add_argument(
        "--consolidate",
        action="store_true",
        help="extraction: consolidate each agent once after its reviews, before the questions "
        "and the twin count",
    )
    add_embedding_cache(parser)
    args = parser.parse_args(argv)
    if args.consolidate and args.target != "extraction":
        parser.error("--consolidate is for --target extraction")
    if args.fact_keys != "none" and args.target != "history":
        parser.error("--fact-keys is for --target history")
    if args.entity_links and args.target != "history":
        parser.error("--entity-links is for --target history")
    if args.fact_keys == "observations" and args.url:
        parser.error("--fact-keys observations starts its own embedded server: drop --url")
    return args


def serve_and_run(
    args: argparse.Namespace,
    stack: contextlib.ExitStack,
    run: Callable[..., dict[str, Any]],
    conversations: list[dict[str, Any]],
) -> dict[str, Any]:
    """The target run against `--url` or an embedded server of its own (stopped at the end).
    Sets what run_history reads besides the options: `args.observations`, the stub the
    embedded server's reviews ask (fact keys `observations`), and `args.database`, its SQLite
    file (None with --url)."""
    args.observations = None
    if args.fact_keys == "observations":
        args.observations = stack.enter_context(ObservationsServer())
    server = None
    if args.url:
        client = Client(args.url, args.token, timeout=120.0)
    else:
        env = args.observations.env() if args.observations is not None else None
        server = EmbeddedServer(
            keep_data=args.keep_data,
            source=args.source,
            env=env,
            embedding_cache=args.embedding_cache,
        ).start()
        client = server.client()
        print(f"embedded server {server.url} (data: {server.data_dir})", flush=True)
    args.database = server.database_path if server is not None else None
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
    return result


def main() -> int:
    args = parse_args()

    run = TARGETS[args.target]
    data = args.data.resolve()
    scorer = (args.scorer or data.parent / SCORER_NAME).resolve()
    if not scorer.exists():
        scorer = DEFAULT_DATA.parent / SCORER_NAME
    conversations = load_conversations(data)
    if args.limit_conversations is not None:
        conversations = conversations[: args.limit_conversations]

    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        result = serve_and_run(args, stack, run, conversations)
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
