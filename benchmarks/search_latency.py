"""Embedded search latency at 1k, 10k and 100k records in one agent.

    .venv/bin/python benchmarks/search_latency.py [--sizes 1000,10000,100000] [--queries 200] \
        [--out FILE] [--direct-load auto|never|always] [--api-load-budget 600] \
        [--source DIR] [--data FILE] [--seed 7]

One embedded server (a subprocess, temporary data directory) and one agent `bench/latency`
whose record memory grows through the sizes in order: records are added to reach each size,
then search_memory is timed there.

Records are synthetic but realistic: LoCoMo observation sentences (read from `--data`, never
copied; templated sentences when the file is absent) with the speakers' names swapped for
random ones, a random date, a `project` label (50 values) and a unique reference token, all from
one seeded generator. Queries are LoCoMo questions with names swapped the same way.

Loading goes through the API: turns of 20 add_memory calls (the service stages at most 24
writes a turn), committed one after another. With `--direct-load auto` (the default), when
loading the rest of a size at the last measured API rate would take longer than
`--api-load-budget` seconds, the records are written straight into the SQLite file instead
(in this process: SqliteStore.write_records with RecordWrite objects, 1,000 a transaction) and
the report says so. A direct load bypasses the service: anything it derives when a turn
commits (a search index, embeddings) is not written, which the coverage probe below shows.

At each size, search_memory {limit 10} is timed for `--queries` queries in three series:
`query` (ranked), `listing` (no query: newest first) and `query+label` (ranked, filtered to
one project), each twice: over HTTP (client-side, agent_memory.client.Client, a new connection
a request as the SDK makes it) and in-process (ToolService.call on services built in this
process on the same database), so the difference is the HTTP, gateway and resolver overhead.
Both go through the tool path, which also records an execution on the turn (a write).
A coverage probe then searches for the unique reference of the oldest and the newest record:
whether ranked search still reaches every record at that size.

`time_chromadb` is the hook for comparing against ChromaDB's filtered query on the same texts
and vectors; it is not wired yet (no vectors until embeddings land, chromadb not installed).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
AGENT = "bench/latency"
TENANT = "default"  # the embedded server's first token acts for tenant `default`
RECORDS_PER_TURN = 20
SEARCH_LIMIT = 10
PROJECTS = 50
DIRECT_BATCH = 1000
WARMUP = 5
NAMES = """Aaliyah Abel Ada Aiko Alba Amara Anders Anika Arjun Astrid Bao Beatriz Bram Camila
Chidi Dara Dmitri Elif Emeka Esme Farah Felix Freya Gael Hana Idris Ines Ivo Jana Jonas Kai
Kalani Kenji Lars Leila Luca Lucia Malik Mara Mateo Mei Nadia Nico Noor Oren Pia Quinn Rafael
Rania Ravi Rosa Sanne Sami Sofia Tariq Thea Tomas Uma Vera Wen Yara Yusuf Zane Zora""".split()
MONTHS = """January February March April May June July August September October November
December""".split()

_TEMPLATE_SUBJECTS = ["started", "finished", "is planning", "keeps postponing", "talked about"]
_TEMPLATE_OBJECTS = [
    "a pottery class",
    "the marathon training plan",
    "repainting the kitchen",
    "a trip to Lisbon",
    "adopting a rescue dog",
    "learning the violin",
    "the community garden project",
    "a new job at the library",
    "volunteering at the shelter",
    "writing a short novel",
]
_TEMPLATE_REASONS = [
    "to feel less stressed",
    "because a friend recommended it",
    "after a long winter",
    "to spend time with family",
    "for the first time in years",
]


# -- synthetic corpus ---------------------------------------------------------------------------


class Corpus:
    """Deterministic record texts and queries (LoCoMo sentences with names swapped, or templates)."""

    def __init__(self, data: Path, seed: int) -> None:
        self.seed = seed
        self.sentences: list[tuple[str, list[str]]] = []  # (sentence, names in it)
        self.questions: list[tuple[str, list[str]]] = []
        if data.exists():
            from locomo import load_conversations

            for conv in load_conversations(data):
                names = sorted({o["speaker"] for o in conv["observations"]})
                self.sentences += [(o["text"], names) for o in conv["observations"]]
                self.questions += [(q["question"], names) for q in conv["qa"]]
            self.source = f"LoCoMo observations of {data.name}, names swapped"
        else:
            self.sentences = [
                (f"PERSON {verb} {obj} {why}.", ["PERSON"])
                for verb in _TEMPLATE_SUBJECTS
                for obj in _TEMPLATE_OBJECTS
                for why in _TEMPLATE_REASONS
            ]
            self.questions = [
                (question.format(obj), ["PERSON"])
                for question in ("What did PERSON say about {}?", "Why did PERSON start {}?")
                for obj in _TEMPLATE_OBJECTS
            ]
            self.source = "templated sentences (no LoCoMo file)"

    @staticmethod
    def _swap(text: str, names: list[str], rng: random.Random) -> str:
        for name in names:
            text = text.replace(name, rng.choice(NAMES))
        return text

    @staticmethod
    def ref(i: int) -> str:
        """The record's unique token (the tokenizer keeps letters and digits together)."""
        return f"k{i:07d}"

    def record(self, i: int) -> dict[str, Any]:
        """Record i's add_memory input, the same for the same seed whatever was made before."""
        rng = random.Random(self.seed * 1_000_003 + i)
        sentence, names = self.sentences[rng.randrange(len(self.sentences))]
        text = " ".join(self._swap(sentence, names, rng).split())[:480]
        project = f"p{rng.randrange(PROJECTS):02d}"
        date = f"{rng.randrange(1, 29)} {rng.choice(MONTHS)}, {rng.choice([2022, 2023, 2024])}"
        return {
            "summary": text,
            "content": f"{date}: {text} (project {project}, ref {self.ref(i)})",
            "kind": "fact",
            "scope": "agent",
            "labels": {"project": project},
        }

    def queries(self, n: int) -> list[tuple[str, str]]:
        """n (query, project) pairs."""
        rng = random.Random(self.seed + 99)
        picked = []
        for _ in range(n):
            question, names = self.questions[rng.randrange(len(self.questions))]
            picked.append((self._swap(question, names, rng), f"p{rng.randrange(PROJECTS):02d}"))
        return picked


def manifest() -> dict[str, Any]:
    return {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["agent"], "write": ["agent"]},
                "tools": ["add_memory"],
                "search": {"mode": "lexical", "max_results": SEARCH_LIMIT},
                "labels": {"project": {"number": 5, "description": "synthetic project"}},
            }
        }
    }


# -- loading --------------------------------------------------------------------------------------


def load_api(client: Any, session_id: str, corpus: Corpus, start: int, stop: int) -> None:
    for first in range(start, stop, RECORDS_PER_TURN):
        turn = client.begin_turn(AGENT, session_id)["id"]
        for i in range(first, min(first + RECORDS_PER_TURN, stop)):
            client.call_tool(
                AGENT, session_id, turn, "add_memory", {"role": "agent"}, **corpus.record(i)
            )
        client.commit_turn(AGENT, session_id, turn)


def load_direct(database: Path, corpus: Corpus, start: int, stop: int) -> None:
    """Write records straight into the SQLite store, bypassing the service (and anything it
    derives at commit). The records look as a committed add_memory leaves them, except the
    provenance, which names this loader."""
    from agent_memory.adapters.sqlite import SqliteStore
    from agent_memory.domain.ids import new_id
    from agent_memory.domain.records import (
        Provenance,
        Record,
        RecordOperation,
        RecordVersion,
        RecordWrite,
    )

    store = SqliteStore(database)
    by = Provenance(actor="benchmark:direct-load")
    try:
        for first in range(start, stop, DIRECT_BATCH):
            writes = []
            for i in range(first, min(first + DIRECT_BATCH, stop)):
                spec = corpus.record(i)
                now = datetime.now(UTC)
                record = Record(
                    tenant=TENANT,
                    agent_id=AGENT,
                    id=new_id("rec"),
                    scope="agent",
                    summary=spec["summary"],
                    content=spec["content"],
                    kind=spec["kind"],
                    labels=spec["labels"],
                    provenance=by,
                    created_at=now,
                    updated_at=now,
                )
                version = RecordVersion(
                    record=record, operation=RecordOperation.CREATE, changed_by=by, at=now
                )
                writes.append(RecordWrite(record=record, expected_version=None, versions=[version]))
            store.write_records(TENANT, AGENT, writes)
    finally:
        store.close()


# -- measuring ---------------------------------------------------------------------------------


def summarize(seconds: list[float]) -> dict[str, Any]:
    from locomo import latency_summary

    return latency_summary(seconds)


def search_bodies(queries: list[tuple[str, str]]) -> dict[str, list[dict[str, Any]]]:
    return {
        "query": [{"query": q, "limit": SEARCH_LIMIT} for q, _ in queries],
        "listing": [{"limit": SEARCH_LIMIT} for _ in queries],
        "query+label": [
            {"query": q, "labels": {"project": p}, "limit": SEARCH_LIMIT} for q, p in queries
        ],
    }


def time_http(
    client: Any, session_id: str, bodies: list[dict[str, Any]]
) -> tuple[list[float], float]:
    turn = client.begin_turn(AGENT, session_id)["id"]
    times = []
    hits = 0
    try:
        for body in bodies[:WARMUP]:
            client.call_tool(AGENT, session_id, turn, "search_memory", {"role": "agent"}, **body)
        for body in bodies:
            t0 = time.perf_counter()
            out = client.call_tool(
                AGENT, session_id, turn, "search_memory", {"role": "agent"}, **body
            )
            times.append(time.perf_counter() - t0)
            hits += len(out["records"])
    finally:
        client.rollback_turn(AGENT, session_id, turn)
    return times, hits / max(1, len(bodies))


def time_in_process(
    services: Any, client: Any, session_id: str, bodies: list[dict[str, Any]]
) -> tuple[list[float], float]:
    turn = client.begin_turn(AGENT, session_id)["id"]
    times = []
    hits = 0
    call = services.tools.call
    try:
        for body in bodies[:WARMUP]:
            call(
                TENANT,
                AGENT,
                session_id,
                turn,
                "search_memory",
                {**body, "caller": {"role": "agent"}},
            )
        for body in bodies:
            t0 = time.perf_counter()
            out = call(
                TENANT,
                AGENT,
                session_id,
                turn,
                "search_memory",
                {**body, "caller": {"role": "agent"}},
            )
            times.append(time.perf_counter() - t0)
            hits += len(out["records"])
    finally:
        client.rollback_turn(AGENT, session_id, turn)
    return times, hits / max(1, len(bodies))


def coverage_probe(client: Any, session_id: str, corpus: Corpus, size: int) -> dict[str, bool]:
    """Does a ranked search for a record's unique token find it (oldest and newest record)?"""
    found = {}
    turn = client.begin_turn(AGENT, session_id)["id"]
    try:
        for name, i in (("oldest", 0), ("newest", size - 1)):
            out = client.call_tool(
                AGENT,
                session_id,
                turn,
                "search_memory",
                {"role": "agent"},
                query=f"ref {corpus.ref(i)}",
                limit=SEARCH_LIMIT,
            )
            found[name] = any(corpus.ref(i) in (r.get("content") or "") for r in out["records"])
    finally:
        client.rollback_turn(AGENT, session_id, turn)
    return found


def time_chromadb(
    texts: Sequence[str],
    vectors: Sequence[Sequence[float]],
    metadatas: Sequence[dict[str, str]],
    query_vectors: Sequence[Sequence[float]],
    where: Sequence[dict[str, str]] | None = None,
    limit: int = SEARCH_LIMIT,
) -> dict[str, Any]:
    """Hook: ChromaDB's filtered query on the same texts and vectors, timed like the service.

    Pass the corpus records' texts (`summary` + `content`), their unit vectors and metadatas
    (`{"project": ...}`), the queries' vectors and, for the filtered series, one `where` per
    query (`{"project": "p07"}`). Returns the same latency summary as the other series, plus
    load time. Untested until chromadb is installed (`pip install chromadb`; not a dependency
    of the project) and the benchmark has vectors (the embeddings work in progress).
    """
    try:
        import chromadb  # type: ignore[import-not-found]
    except ImportError:
        return {"skipped": "chromadb is not installed"}
    client = chromadb.EphemeralClient()
    collection = client.create_collection("bench", metadata={"hnsw:space": "cosine"})
    started = time.perf_counter()
    batch = 5000  # below chromadb's max batch size
    for first in range(0, len(texts), batch):
        collection.add(
            ids=[f"r{i}" for i in range(first, min(first + batch, len(texts)))],
            documents=list(texts[first : first + batch]),
            embeddings=[list(v) for v in vectors[first : first + batch]],
            metadatas=list(metadatas[first : first + batch]),
        )
    load_s = time.perf_counter() - started
    times = []
    for i, vector in enumerate(query_vectors):
        t0 = time.perf_counter()
        collection.query(
            query_embeddings=[list(vector)], n_results=limit, where=where[i] if where else None
        )
        times.append(time.perf_counter() - t0)
    return {"load_s": round(load_s, 2), "query": summarize(times)}


# -- main -------------------------------------------------------------------------------------


def sizes_arg(text: str) -> list[int]:
    sizes = sorted({int(s.replace("_", "").replace("k", "000")) for s in text.split(",")})
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError("sizes are positive integers, e.g. 1000,10000")
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=sizes_arg, default=sizes_arg("1000,10000,100000"))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    parser.add_argument(
        "--direct-load",
        choices=["auto", "never", "always"],
        default="auto",
        help="write records straight into SQLite (auto: when the API would take too long)",
    )
    parser.add_argument("--api-load-budget", type=float, default=600.0, help="seconds")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/locomo_dev.json")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--series", default="query,listing,query+label")
    parser.add_argument("--no-in-process", action="store_true", help="HTTP series only")
    parser.add_argument(
        "--source",
        type=Path,
        default=None,
        help="agent_memory to serve and to call in-process (default: this checkout's layers/core)",
    )
    parser.add_argument("--keep-data", action="store_true")
    parser.add_argument("--chromadb", action="store_true", help="also time time_chromadb")
    args = parser.parse_args()
    if args.chromadb:
        raise SystemExit(
            "search_latency.py: --chromadb is not wired yet: time_chromadb needs record and query "
            "vectors, which come with the embeddings work (and chromadb is not installed)"
        )

    source = (args.source or ROOT / "layers" / "core").resolve()
    sys.path.insert(0, str(source))  # before anything imports agent_memory
    from locomo import EmbeddedServer

    corpus = Corpus(args.data, args.seed)
    bodies = search_bodies(corpus.queries(args.queries))
    series = [s for s in args.series.split(",") if s]
    report: dict[str, Any] = {
        "corpus": corpus.source,
        "seed": args.seed,
        "queries": args.queries,
        "limit": SEARCH_LIMIT,
        "source": str(source),
        "sizes": [],
    }
    started = time.perf_counter()
    server = EmbeddedServer(keep_data=args.keep_data, source=source).start()
    print(f"embedded server {server.url} (data: {server.data_dir}, code: {source})", flush=True)
    services = None
    try:
        client = server.client(timeout=300.0)
        client.put_agent(AGENT, manifest())
        session_id = client.create_session(AGENT)["id"]
        loaded = 0
        api_rate: float | None = None
        for size in args.sizes:
            count = size - loaded
            estimate = count / api_rate if api_rate else None
            direct = args.direct_load == "always" or (
                args.direct_load == "auto"
                and estimate is not None
                and estimate > args.api_load_budget
            )
            t0 = time.perf_counter()
            if direct:
                load_direct(server.database_path, corpus, loaded, size)
            else:
                load_api(client, session_id, corpus, loaded, size)
            load_s = time.perf_counter() - t0
            rate = count / load_s if load_s else 0.0
            if not direct:
                api_rate = rate
            loaded = size
            how = "direct SQLite write" if direct else f"API, {RECORDS_PER_TURN} a turn"
            note = f" (API estimate {estimate:.0f} s)" if direct and estimate else ""
            print(
                f"{size:>7} records: +{count} in {load_s:.1f} s ({rate:.0f}/s, {how}){note}",
                flush=True,
            )
            entry: dict[str, Any] = {
                "records": size,
                "load": {
                    "added": count,
                    "method": "direct" if direct else "api",
                    "seconds": round(load_s, 2),
                    "records_per_s": round(rate, 1),
                    "api_estimate_s": round(estimate, 1) if estimate else None,
                },
                "database_mb": round(
                    sum(p.stat().st_size for p in server.data_dir.glob("agent-memory.sqlite3*"))
                    / 1e6,
                    1,
                ),
                "http": {},
                "in_process": {},
            }
            if not args.no_in_process and services is None:
                from agent_memory.bootstrap import build_services
                from agent_memory.settings import Settings

                services = build_services(Settings(data_dir=server.data_dir))
            for name in series:
                times, hits = time_http(client, session_id, bodies[name])
                entry["http"][name] = {**summarize(times), "mean_hits": round(hits, 2)}
                line = f"    {name:<12} HTTP p50 {entry['http'][name]['p50_ms']:>8} ms  p99 {entry['http'][name]['p99_ms']:>8} ms"
                if services is not None:
                    times, hits = time_in_process(services, client, session_id, bodies[name])
                    entry["in_process"][name] = {**summarize(times), "mean_hits": round(hits, 2)}
                    line += f"  | in-process p50 {entry['in_process'][name]['p50_ms']:>8} ms  p99 {entry['in_process'][name]['p99_ms']:>8} ms"
                print(line, flush=True)
            entry["coverage_probe"] = coverage_probe(client, session_id, corpus, size)
            print(
                f"    coverage probe (ranked search finds the record's unique token): {entry['coverage_probe']}",
                flush=True,
            )
            report["sizes"].append(entry)
    except BaseException:
        print(server.log_tail(), file=sys.stderr)
        raise
    finally:
        if services is not None:
            services.close()
        server.stop()
    report["wall_s"] = round(time.perf_counter() - started, 1)
    print(f"wall: {report['wall_s']} s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1))
        print(f"figures: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
