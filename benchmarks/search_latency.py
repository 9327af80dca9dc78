"""Embedded search latency at 1k, 10k and 100k records in one agent, next to ChromaDB.

    .venv/bin/python benchmarks/search_latency.py [--sizes 1000,10000,100000] [--queries 200] \
        [--agents 5] [--vectors jitter|model] [--data-dir DIR] [--out FILE] [--no-chromadb] \
        [--no-http] [--source DIR] [--data FILE] [--seed 7] [--smoke]

`--smoke` is the suite's run (seconds, so the benchmark cannot rot): 60 records in each of two
agents, 8 queries, templated sentences, 20 calibration pairs, and the ChromaDB series only when
chromadb (the `bench` extra) is installed.

The agent measured, `bench/latency`, is one of `--agents` agents of equal size in one embedded
data directory (the others are `bench/other-1`...), so every filter by agent has something to
filter out: the FTS5 table is shared by all agents of the file, and ChromaDB holds all of them
in one collection filtered by `agent_id`. The agents grow through `--sizes` in order; at each
size, searches are timed for `--queries` queries (after five warm-up calls a series).

Records are synthetic but realistic: LoCoMo observation sentences (read from `--data`, never
copied; templated sentences when the file is absent) with the speakers' names swapped for
random ones, a random date, a `project` label (50 values) and a unique reference token, all from
one seeded generator. Queries are LoCoMo questions with names swapped the same way.

Loading is in-process, through the code path a commit takes, without the turn around it:
records are built as a committed add_memory leaves them (provenance `benchmark:load`), their
index documents come from `SearchService.docs_for` (the service's own text and fields), each
with its vector as the background embedder would leave it (so no vector is pending), and
`SqliteStore.write_records` writes records, versions and index documents in one transaction,
1,000 records a batch, agents interleaved batch by batch. Loading through the API embeds every
record at commit (~130 records/s on this machine): 500,000 records would take an hour.

Record vectors (`--vectors`): `model` embeds each record's text with the service's model
(all-MiniLM-L6-v2 int8; only practical to about 10k records an agent). `jitter` (the default)
embeds each LoCoMo sentence once with the same model (as a record's text would carry it, with
its original names and a fixed date, project and reference) and gives each record made from it
that vector plus seeded Gaussian noise, renormalised; the noise is calibrated so that two
records made from one sentence are as similar as the model makes two such records (150 pairs,
reported under `vector_calibration`). The exact index costs the same whatever the values;
ChromaDB's HNSW graph sees a realistic neighbourhood structure. Query vectors are always the
model's.

Series at each size (p50/p90/p99/mean/max in ms):

- `service`: `search_memory` through `ToolService.call` in this process (the tool path: turn
  context, the index, records re-read from the store, an execution recorded on the turn):
  `hybrid` (a query, embedding it included), `hybrid, vector given` (the same with the query's
  vector precomputed: the service is built with an embedder that returns it), `hybrid + label`
  (filtered to one project), `listing` (no query, newest first).
- `http`: `hybrid`, `hybrid + label` and `listing` over HTTP with the SDK client (a new
  connection a request) against `agent-memory serve` on the same data directory.
- `index`: EmbeddedIndex directly, query vectors precomputed, the filter the service passes:
  `lexical` (50 candidates, as the service takes), `vector` (top 10), `vector + label`,
  `hybrid` (lexical 50 + vector 50 + `fuse`, as the service ranks).
- `chromadb`: ChromaDB (the `bench` extra; PersistentClient in the data directory, anonymized
  telemetry off, one collection with cosine HNSW, our vectors passed in, no embedding function,
  texts as documents, metadata `agent_id` and `project`): `query(n_results=10,
  where={"agent_id": ...})` with its default include (documents, metadatas, distances),
  the same with `include=["distances"]`, and `where` agent and project.

A coverage probe then searches (HTTP) for the unique reference token of the agent's oldest and
newest record: ranked search should reach every record. `--data-dir DIR` keeps the data (and a
state file) so a later run can continue loading from where an earlier one stopped: with it, one
run can load and measure 1k and 10k, another continue to 100k.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
AGENT = "bench/latency"
TENANT = "default"  # the embedded server's first token acts for tenant `default`
SEARCH_LIMIT = 10
PROJECTS = 50
LOAD_BATCH = 1000
AGENT_STRIDE = 10_000_000  # agent k's records are corpus records k * AGENT_STRIDE + i
WARMUP = 5
CALIBRATION_PAIRS = 150
STATE_FILE = "bench-state.json"
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

    def __init__(self, data: Path | None, seed: int) -> None:
        self.seed = seed
        self.sentences: list[tuple[str, list[str]]] = []  # (sentence, names in it)
        self.questions: list[tuple[str, list[str]]] = []
        if data is not None and data.exists():
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

    def draw(self, i: int) -> tuple[dict[str, Any], int]:
        """Record i's add_memory input and the sentence it was made from; the same for the same
        seed whatever was made before."""
        rng = random.Random(self.seed * 1_000_003 + i)
        base = rng.randrange(len(self.sentences))
        sentence, names = self.sentences[base]
        text = " ".join(self._swap(sentence, names, rng).split())[:480]
        project = f"p{rng.randrange(PROJECTS):02d}"
        date = f"{rng.randrange(1, 29)} {rng.choice(MONTHS)}, {rng.choice([2022, 2023, 2024])}"
        spec = {
            "summary": text,
            "content": f"{date}: {text} (project {project}, ref {self.ref(i)})",
            "kind": "fact",
            "scope": "agent",
            "labels": {"project": project},
        }
        return spec, base

    def record(self, i: int) -> dict[str, Any]:
        return self.draw(i)[0]

    def queries(self, n: int) -> list[tuple[str, str]]:
        """n (query, project) pairs."""
        rng = random.Random(self.seed + 99)
        picked = []
        for _ in range(n):
            question, names = self.questions[rng.randrange(len(self.questions))]
            picked.append((self._swap(question, names, rng), f"p{rng.randrange(PROJECTS):02d}"))
        return picked


def agent_ids(count: int) -> list[str]:
    return [AGENT] + [f"bench/other-{k}" for k in range(1, count)]


def manifest() -> dict[str, Any]:
    return {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["agent"], "write": ["agent"]},
                "tools": ["add_memory"],
                "search": {"mode": "hybrid", "max_results": SEARCH_LIMIT},
                "labels": {"project": {"number": 5, "description": "synthetic project"}},
            }
        }
    }


# -- vectors --------------------------------------------------------------------------------------


def unit(rows: Any) -> Any:
    import numpy as np

    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=-1, keepdims=True)


class RecordVectors:
    """Vectors for corpus records: the model's, or a sentence's vector with calibrated noise."""

    def __init__(
        self, mode: str, corpus: Corpus, model: Any, cache: Path, pairs: int = CALIBRATION_PAIRS
    ) -> None:
        import numpy as np

        self.mode = mode
        self.pairs = pairs
        self.corpus = corpus
        self.model = model
        self.sigma = 0.0
        self.calibration: dict[str, Any] = {}
        if mode != "jitter":
            return
        bases = cache / f"sentence-vectors-{len(corpus.sentences)}.npy"
        if bases.exists():
            self.bases = np.load(bases)
        else:
            # Each sentence as a record's text would carry it (summary, then dated content),
            # with its original names and a fixed date, project and reference.
            self.bases = model.embed(
                [
                    f"{s}\n1 January, 2023: {s} (project p00, ref {corpus.ref(0)})"
                    for s, _ in corpus.sentences
                ]
            ).vectors
            np.save(bases, self.bases)
        self._calibrate()

    def _noise(self, i: int) -> Any:
        import numpy as np

        return np.random.default_rng([self.corpus.seed, i]).standard_normal(self.bases.shape[1])

    def _jittered(self, i: int, base: int) -> Any:
        return unit(self.bases[base] + self.sigma * self._noise(i))

    def _calibrate(self) -> None:
        """sigma such that two jittered records of one sentence have the mean cosine of two
        model-embedded records of one sentence: 1 / (1 + sigma^2 d) = c."""
        import numpy as np

        from agent_memory.domain.search.service import meaning_text

        first: dict[int, int] = {}
        pairs: list[tuple[int, int]] = []
        i = 0
        while len(pairs) < self.pairs:
            base = self.corpus.draw(i)[1]
            if base in first:
                pairs.append((first.pop(base), i))
            else:
                first[base] = i
            i += 1
        ids = [i for pair in pairs for i in pair]
        texts = [
            meaning_text(_record(self.corpus.record(i), AGENT, datetime.now(UTC))) for i in ids
        ]
        real = dict(zip(ids, self.model.embed(texts).vectors, strict=True))
        pair_cos = float(np.mean([real[a] @ real[b] for a, b in pairs]))
        base_cos = float(np.mean([real[i] @ self.bases[self.corpus.draw(i)[1]] for i in ids]))
        dims = self.bases.shape[1]
        self.sigma = float(np.sqrt(max(1.0 / pair_cos - 1.0, 0.0) / dims))
        jit = {i: self._jittered(i, self.corpus.draw(i)[1]) for i in ids}
        self.calibration = {
            "pairs": len(pairs),
            "model_pair_cosine": round(pair_cos, 4),
            "model_record_to_sentence_cosine": round(base_cos, 4),
            "sigma": round(self.sigma, 5),
            "jitter_pair_cosine": round(float(np.mean([jit[a] @ jit[b] for a, b in pairs])), 4),
            "jitter_to_model_cosine": round(float(np.mean([jit[i] @ real[i] for i in ids])), 4),
        }

    def vectors(self, indices: Sequence[int], texts: Sequence[str]) -> Any:
        import numpy as np

        if self.mode == "model":
            return self.model.embed(list(texts)).vectors
        return np.stack([self._jittered(i, self.corpus.draw(i)[1]) for i in indices])


def given_embedder(model: Any) -> Any:
    """An Embedder that answers from a table of known texts (records being loaded, queries whose
    vectors were precomputed) and asks the model for anything else; same model id."""
    import numpy as np

    from agent_memory.domain.search.embeddings import Embedder, Embedding

    class Given(Embedder):
        model_id = model.model_id
        dimensions = model.dimensions

        def __init__(self) -> None:
            self.table: dict[str, Any] = {}

        def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
            missing = [t for t in texts if t not in self.table]
            if missing:
                self.table.update(
                    zip(missing, model.embed(missing, query=query).vectors, strict=True)
                )
            rows = np.stack([self.table[t] for t in texts]) if texts else np.zeros((0, 384))
            return Embedding(
                vectors=rows.astype(np.float32), model_id=self.model_id, input_tokens=0
            )

    return Given()


# -- loading --------------------------------------------------------------------------------------


def _record(spec: dict[str, Any], agent_id: str, now: datetime) -> Any:
    from agent_memory.domain.kernel.ids import new_id
    from agent_memory.domain.records.models import Provenance, Record

    return Record(
        tenant=TENANT,
        agent_id=agent_id,
        id=new_id("rec"),
        scope=spec["scope"],
        summary=spec["summary"],
        content=spec["content"],
        kind=spec["kind"],
        labels=spec["labels"],
        provenance=Provenance(actor="benchmark:load"),
        created_at=now,
        updated_at=now,
    )


class Loader:
    """Writes corpus records as a commit does: records, versions and index documents (from
    SearchService.docs_for) in one SqliteStore.write_records transaction; optionally the same
    records into a ChromaDB collection."""

    def __init__(self, database: Path, corpus: Corpus, vectors: RecordVectors, chroma: Any) -> None:
        from agent_memory.adapters.embeddings.local import DIMENSIONS, MODEL_ID
        from agent_memory.adapters.sqlite import SqliteStore
        from agent_memory.domain.search.service import SearchService

        self.store = SqliteStore(database)
        self.index = self.store.attach_index(MODEL_ID, DIMENSIONS)
        self.model_id = MODEL_ID
        self.search = SearchService(self.index, given_embedder(vectors.model), inline=True)
        self.corpus = corpus
        self.vectors = vectors
        self.chroma = chroma
        self.chroma_seconds = 0.0

    def load(self, agent_index: int, agent_id: str, start: int, stop: int) -> None:
        from agent_memory.domain.records.models import (
            Provenance,
            RecordOperation,
            RecordVersion,
            RecordWrite,
        )
        from agent_memory.domain.search.service import meaning_text, record_text

        by = Provenance(actor="benchmark:load")
        indices = [agent_index * AGENT_STRIDE + i for i in range(start, stop)]
        now = datetime.now(UTC)
        records = [_record(self.corpus.record(i), agent_id, now) for i in indices]
        texts = [meaning_text(r) for r in records]
        rows = self.vectors.vectors(indices, texts)
        # docs_for leaves each document's vector to the background embedder (an EmbedRequest);
        # the load gives it its vector at once, as the embedder would leave it, so the series
        # time the index a commit leaves once its vectors are in.
        docs = [
            replace(doc, vector=row, model_id=self.model_id, embed=None)
            for doc, row in zip(self.search.docs_for(records), rows, strict=True)
        ]
        writes = [
            RecordWrite(
                record=r,
                expected_version=None,
                versions=[
                    RecordVersion(record=r, operation=RecordOperation.CREATE, changed_by=by, at=now)
                ],
                index=doc,
            )
            for r, doc in zip(records, docs, strict=True)
        ]
        self.store.write_records(TENANT, agent_id, writes)
        if self.chroma is not None:
            t0 = time.perf_counter()
            self.chroma.add(
                ids=[r.id for r in records],
                embeddings=rows,
                documents=[record_text(r) for r in records],
                metadatas=[{"agent_id": agent_id, **r.labels} for r in records],
            )
            self.chroma_seconds += time.perf_counter() - t0

    def close(self) -> None:
        self.store.close()


def chromadb_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("chromadb") is not None


def open_chroma(path: Path) -> Any:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    client = chromadb.PersistentClient(
        path=str(path), settings=ChromaSettings(anonymized_telemetry=False)
    )
    collection = client.get_or_create_collection(
        "bench-records", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
    )
    return client, collection


# -- measuring ---------------------------------------------------------------------------------


def summarize(seconds: list[float]) -> dict[str, Any]:
    from locomo import latency_summary

    return latency_summary(seconds)


def timed(calls: Sequence[Callable[[], Any]]) -> tuple[dict[str, Any], float]:
    """Five warm-up calls, then each call timed; returns the summary and mean result size."""
    for call in calls[:WARMUP]:
        call()
    times = []
    sizes = 0
    for call in calls:
        t0 = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - t0)
        sizes += out if isinstance(out, int) else 0
    return {**summarize(times), "load_avg_1m": round(os.getloadavg()[0], 2)}, sizes / max(
        1, len(calls)
    )


def search_bodies(queries: list[tuple[str, str]]) -> dict[str, list[dict[str, Any]]]:
    return {
        "hybrid": [{"query": q, "limit": SEARCH_LIMIT} for q, _ in queries],
        "hybrid + label": [
            {"query": q, "labels": {"project": p}, "limit": SEARCH_LIMIT} for q, p in queries
        ],
        "listing": [{"limit": SEARCH_LIMIT} for _ in queries],
    }


class Turn:
    """One open turn of the target agent (rolled back at the end), for tool calls."""

    def __init__(self, client: Any, session_id: str) -> None:
        self.client = client
        self.session_id = session_id
        self.id = client.begin_turn(AGENT, session_id)["id"]

    def __enter__(self) -> Turn:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.client.rollback_turn(AGENT, self.session_id, self.id)


def service_calls(services: Any, turn: Turn, bodies: list[dict[str, Any]]) -> list[Any]:
    from agent_memory.domain.kernel.where import TurnRef

    where = TurnRef(TENANT, AGENT, turn.session_id, turn.id)

    def call(body: dict[str, Any]) -> Callable[[], int]:
        args = {**body, "caller": {"role": "agent"}}
        return lambda: len(services.tools.call(where, "search_memory", args).dump()["records"])

    return [call(b) for b in bodies]


def http_calls(client: Any, turn: Turn, bodies: list[dict[str, Any]]) -> list[Any]:
    def call(body: dict[str, Any]) -> Callable[[], int]:
        return lambda: len(
            client.call_tool(
                AGENT, turn.session_id, turn.id, "search_memory", caller={"role": "agent"}, **body
            )["records"]
        )

    return [call(b) for b in bodies]


def index_calls(
    index: Any, queries: list[tuple[str, str]], query_vectors: Any
) -> dict[str, list[Any]]:
    from agent_memory.domain.records.models import RecordQuery
    from agent_memory.domain.records.service import index_filter
    from agent_memory.domain.search.ranking import fuse
    from agent_memory.domain.search.service import CANDIDATES

    # The filter the service passes for this manifest (agent scope read, no preview).
    where = index_filter(RecordQuery(include_agent=True, preview="live"))
    labelled = [index_filter(RecordQuery(labels={"project": p})) for _, p in queries]

    def hybrid(i: int) -> int:
        lexical = index.lexical(TENANT, AGENT, queries[i][0], where, CANDIDATES)
        vector = index.vector(TENANT, AGENT, query_vectors[i], where, CANDIDATES)
        created = {h.id: h.created_at for h in (*lexical, *vector) if h.created_at is not None}
        return len(fuse(lexical, vector, "hybrid", None, created)[:SEARCH_LIMIT])

    n = range(len(queries))
    return {
        "lexical (50)": [
            (lambda i=i: len(index.lexical(TENANT, AGENT, queries[i][0], where, CANDIDATES)))
            for i in n
        ],
        "vector": [
            (lambda i=i: len(index.vector(TENANT, AGENT, query_vectors[i], where, SEARCH_LIMIT)))
            for i in n
        ],
        "vector + label": [
            (
                lambda i=i: len(
                    index.vector(TENANT, AGENT, query_vectors[i], labelled[i], SEARCH_LIMIT)
                )
            )
            for i in n
        ],
        "hybrid": [(lambda i=i: hybrid(i)) for i in n],
    }


def chroma_calls(
    collection: Any, queries: list[tuple[str, str]], query_vectors: Any
) -> dict[str, list[Any]]:
    def query(i: int, where: dict[str, Any], **kw: Any) -> Callable[[], int]:
        return lambda: len(
            collection.query(
                query_embeddings=[query_vectors[i]], n_results=SEARCH_LIMIT, where=where, **kw
            )["ids"][0]
        )

    n = range(len(queries))
    return {
        "filtered by agent": [query(i, {"agent_id": AGENT}) for i in n],
        "filtered by agent, distances only": [
            query(i, {"agent_id": AGENT}, include=["distances"]) for i in n
        ],
        "filtered by agent + label": [
            query(i, {"$and": [{"agent_id": AGENT}, {"project": queries[i][1]}]}) for i in n
        ],
    }


def coverage_probe(client: Any, turn: Turn, corpus: Corpus, size: int) -> dict[str, bool]:
    """Does a ranked search for a record's unique token find it (oldest and newest record)?"""
    found = {}
    for name, i in (("oldest", 0), ("newest", size - 1)):
        out = client.call_tool(
            AGENT,
            turn.session_id,
            turn.id,
            "search_memory",
            caller={"role": "agent"},
            query=f"ref {corpus.ref(i)}",
            limit=SEARCH_LIMIT,
        )
        found[name] = any(corpus.ref(i) in (r.get("content") or "") for r in out["records"])
    return found


# -- main -------------------------------------------------------------------------------------


def sizes_arg(text: str) -> list[int]:
    sizes = sorted({int(s.replace("_", "").replace("k", "000")) for s in text.split(",")})
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError("sizes are positive integers, e.g. 1000,10000")
    return sizes


def print_series(group: str, name: str, entry: dict[str, Any]) -> None:
    print(
        f"    {group:<9} {name:<34} p50 {entry['p50_ms']:>8} ms  p99 {entry['p99_ms']:>8} ms"
        f"  (hits {entry['mean_hits']}, load {entry['load_avg_1m']})",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=sizes_arg, default=sizes_arg("1000,10000,100000"))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--agents", type=int, default=5, help="agents of equal size, target one")
    parser.add_argument("--vectors", choices=["jitter", "model"], default="jitter")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="keep the data here and continue from what an earlier run loaded into it",
    )
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/locomo_dev.json")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-chromadb", action="store_true")
    parser.add_argument(
        "--smoke", action="store_true", help="tiny sizes, templated sentences: seconds"
    )
    parser.add_argument("--no-http", action="store_true")
    parser.add_argument(
        "--source",
        type=Path,
        default=None,
        help="agent_memory to serve and to call in-process (default: this checkout's layers/core)",
    )
    args = parser.parse_args()
    calibration_pairs = CALIBRATION_PAIRS
    if args.smoke:
        args.sizes, args.queries, args.agents, calibration_pairs = [60], 8, 2, 20
        args.data = None  # the templated sentences
        if not args.no_chromadb and not chromadb_installed():
            print("chromadb is not installed (the bench extra): no ChromaDB series", flush=True)
            args.no_chromadb = True

    source = (args.source or ROOT / "layers" / "core").resolve()
    sys.path.insert(0, str(source))  # before anything imports agent_memory
    from locomo import EmbeddedServer

    from agent_memory.adapters.embeddings.local import LocalEmbedder
    from agent_memory.bootstrap import build_services
    from agent_memory.settings import Settings

    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="agent-memory-latency-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    state_path = data_dir / STATE_FILE
    config = {
        "seed": args.seed,
        "agents": args.agents,
        "vectors": args.vectors,
        "chromadb": not args.no_chromadb,
    }
    state = json.loads(state_path.read_text()) if state_path.exists() else {**config, "loaded": 0}
    same = all(state.get(k) == v for k, v in config.items() if k != "chromadb")
    if not same or (config["chromadb"] and not state["chromadb"]):
        raise SystemExit(f"{data_dir} was loaded with {state}; this run asks for {config}")
    if state["chromadb"] and not config["chromadb"] and args.sizes[-1] > state["loaded"]:
        raise SystemExit(f"{data_dir} holds ChromaDB's copy: load more with --chromadb")
    if state["loaded"] > args.sizes[0]:
        raise SystemExit(f"{data_dir} already holds {state['loaded']} records an agent")

    corpus = Corpus(args.data, args.seed)
    # Said first: templated sentences share most of their words, which makes the words half
    # several times dearer than on LoCoMo's, so the two runs' figures do not compare.
    print(f"corpus: {corpus.source}", flush=True)
    queries = corpus.queries(args.queries)
    bodies = search_bodies(queries)
    model = LocalEmbedder()
    started = time.perf_counter()
    vectors = RecordVectors(args.vectors, corpus, model, data_dir, calibration_pairs)
    query_vectors = model.embed([q for q, _ in queries], query=True).vectors
    report: dict[str, Any] = {
        "corpus": corpus.source,
        **config,
        "queries": args.queries,
        "limit": SEARCH_LIMIT,
        "source": str(source),
        "vector_calibration": vectors.calibration,
        "sizes": [],
    }
    if vectors.calibration:
        print(f"vectors: jitter, {vectors.calibration}", flush=True)

    collection = None
    if not args.no_chromadb:
        _chroma_client, collection = open_chroma(data_dir / "chroma")
        import chromadb

        report["chromadb_version"] = chromadb.__version__
    server = EmbeddedServer(keep_data=True, source=source)
    shutil.rmtree(server.data_dir, ignore_errors=True)  # its own temporary directory: unused
    server.data_dir = data_dir
    server.start()
    print(f"embedded server {server.url} (data: {data_dir}, code: {source})", flush=True)
    loader = services = given = None
    try:
        client = server.client(timeout=300.0)
        agents = agent_ids(args.agents)
        for agent_id in agents:
            client.put_agent(agent_id, manifest())
        session_id = client.create_session(AGENT)["id"]
        loader = Loader(server.database_path, corpus, vectors, collection)
        services = build_services(Settings(data_dir=data_dir))
        # The same service, but the query's vector is looked up rather than computed.
        given_queries = given_embedder(model)
        given_queries.table = {q: v for (q, _), v in zip(queries, query_vectors, strict=True)}
        given = build_services(Settings(data_dir=data_dir), embedder=given_queries)
        for size in args.sizes:
            start = state["loaded"]
            t0 = time.perf_counter()
            chroma_before = loader.chroma_seconds
            for first in range(start, size, LOAD_BATCH):
                for k, agent_id in enumerate(agents):
                    loader.load(k, agent_id, first, min(first + LOAD_BATCH, size))
            load_s = time.perf_counter() - t0
            chroma_s = loader.chroma_seconds - chroma_before
            state["loaded"] = size
            state_path.write_text(json.dumps(state))
            added = (size - start) * len(agents)
            print(
                f"{size:>7} records an agent ({size * len(agents)} in all): +{added} in "
                f"{load_s:.1f} s, of which ChromaDB add {chroma_s:.1f} s",
                flush=True,
            )
            entry: dict[str, Any] = {
                "records": size,
                "records_all_agents": size * len(agents),
                "load": {
                    "added": added,
                    "seconds": round(load_s, 1),
                    "chromadb_add_seconds": round(chroma_s, 1),
                },
                "database_mb": round(
                    sum(p.stat().st_size for p in data_dir.glob("agent-memory.sqlite3*")) / 1e6, 1
                ),
                "first_search": {},
                "service": {},
                "http": {},
                "index": {},
                "chromadb": {},
            }

            def record(group: str, name: str, calls: Sequence[Any], entry: dict[str, Any]) -> None:
                summary, hits = timed(calls)
                entry[group][name] = {**summary, "mean_hits": round(hits, 2)}
                print_series(group, name, entry[group][name])

            with Turn(client, session_id) as turn:
                # The first ranked search after a load reads the new rows into the agent's
                # vector matrix (all of them in a fresh process).
                for name, call in (
                    ("service", service_calls(services, turn, bodies["hybrid"][:1])[0]),
                    ("service, vector given", service_calls(given, turn, bodies["hybrid"][:1])[0]),
                    ("http", http_calls(client, turn, bodies["hybrid"][:1])[0]),
                    ("index", index_calls(loader.index, queries[:1], query_vectors)["vector"][0]),
                ):
                    if name == "http" and args.no_http:
                        continue
                    t1 = time.perf_counter()
                    call()
                    entry["first_search"][name] = round((time.perf_counter() - t1) * 1000, 1)
                print(f"    first search after the load (ms): {entry['first_search']}", flush=True)
                record("service", "hybrid", service_calls(services, turn, bodies["hybrid"]), entry)
                record(
                    "service",
                    "hybrid, vector given",
                    service_calls(given, turn, bodies["hybrid"]),
                    entry,
                )
                record(
                    "service",
                    "hybrid + label",
                    service_calls(services, turn, bodies["hybrid + label"]),
                    entry,
                )
                record(
                    "service", "listing", service_calls(services, turn, bodies["listing"]), entry
                )
                if not args.no_http:
                    for name in ("hybrid", "hybrid + label", "listing"):
                        record("http", name, http_calls(client, turn, bodies[name]), entry)
                for name, calls in index_calls(loader.index, queries, query_vectors).items():
                    record("index", name, calls, entry)
                if collection is not None:
                    for name, calls in chroma_calls(collection, queries, query_vectors).items():
                        record("chromadb", name, calls, entry)
                entry["coverage_probe"] = coverage_probe(client, turn, corpus, size)
            print(
                "    coverage probe (ranked search finds the record's unique token): "
                f"{entry['coverage_probe']}",
                flush=True,
            )
            report["sizes"].append(entry)
    except BaseException:
        print(server.log_tail(), file=sys.stderr)
        raise
    finally:
        for closing in (services, given, loader):
            if closing is not None:
                closing.close()
        server.stop()
        if args.data_dir is None:
            shutil.rmtree(data_dir, ignore_errors=True)
    report["wall_s"] = round(time.perf_counter() - started, 1)
    print(f"wall: {report['wall_s']} s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1))
        print(f"figures: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
