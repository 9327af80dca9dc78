"""AWS calls per operation in the cloud shape, counted under moto (no AWS account).

    .venv/bin/python benchmarks/aws_calls.py [--out benchmarks/aws_calls.json] [--markdown FILE]
    .venv/bin/python benchmarks/aws_calls.py --smoke --out FILE   # the suite's run: seconds

`--smoke` (the suite's run) measures one reviewed turn and the S3 Vectors index, leaving out
the API's operations and the forks and deletes (a minute and more on two cores; their counts
are held by tests/integration/test_aws_calls.py); it writes only where `--out` says, never the
committed aws_calls.json that cost_model.py reads.

Each API operation and background path runs once (or at a few sizes, to read a per-item cost)
on the cloud shape of tests/cloud_shape.py: the API function on DynamoDB, EventBridge, Step
Functions and Bedrock embeddings (answered by the meter), an OpenSearch index on osmem-server,
the indexer function fed each operation's stream records, and the extraction state machine run
by moto's ASL interpreter. tests/aws_meter.py counts every botocore call, prices DynamoDB read
and write units from item sizes (moto reports fixed figures), counts OpenSearch HTTP requests
and Bedrock calls and tokens. benchmarks/cost_model.py reads the JSON this writes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from manifests import memory_manifest  # noqa: E402  (tests/ is on the path only from here)

AGENT = "bench/agent"
A = f"/v1/agents/{AGENT}"
CALLER = {"role": "agent"}
MANIFEST = memory_manifest()
WORDS = "release deploy region tuesday rollback canary customer invoice billing schema".split()


def sentence(i: int) -> str:
    return f"Note {i}: the {WORDS[i % 10]} runs after the {WORDS[(i * 3 + 1) % 10]} step."


class Bench:
    """Runs operations on one cloud shape and keeps what each cost."""

    def __init__(self, shape: Any) -> None:
        self.shape = shape
        self.api = shape.api
        self.rows: dict[str, dict[str, Any]] = {}

    def measure(self, name: str, run: Callable[[], Any], note: str = "") -> Any:
        self.shape.meter.take()
        result = run()
        tally = self.shape.meter.take().as_dict()
        tally["note"] = note
        self.rows[name] = tally
        return result

    def index(self, name: str) -> None:
        """The indexer function on the stream records the operations since the last call wrote."""
        count = [0]
        self.measure(name, lambda: count.__setitem__(0, self.shape.index_stream()))
        self.rows[name]["stream_records"] = count[0]

    def session(self) -> str:
        return str(self.api.ok("POST", f"{A}/-/sessions", expect=201)["id"])

    def begin(self, session: str) -> str:
        turn = self.api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)["id"]
        return f"{A}/-/sessions/{session}/turns/{turn}"

    def events(self, turn: str, n: int, start: int = 0) -> Any:
        events = [{"role": "user", "text": sentence(start + i)} for i in range(n)]
        return self.api.ok("POST", f"{turn}/events", {"events": events})

    def tool(self, turn: str, name: str, **args: Any) -> Any:
        return self.api.ok("POST", f"{turn}/tools/{name}", {**args, "caller": CALLER})["output"]

    def add(self, turn: str, k: int, start: int = 0) -> None:
        for i in range(k):
            self.tool(turn, "add_memory", summary=sentence(start + i), scope="agent")


def run_api(bench: Bench) -> None:
    api = bench.api
    bench.measure("agent put (create)", lambda: api.ok("PUT", A, MANIFEST, expect=201))
    session = bench.measure("session create", bench.session)
    turn = bench.measure("begin", lambda: bench.begin(session))
    bench.measure("append 1 event", lambda: bench.events(turn, 1))
    bench.measure("append 10 events (one request)", lambda: bench.events(turn, 10, 1))
    bench.measure(
        "tool add_memory (staged)",
        lambda: bench.tool(turn, "add_memory", summary=sentence(100), scope="agent"),
    )
    bench.measure("commit k=1 record, n=11 events", lambda: api.ok("POST", f"{turn}/commit"))
    bench.index("indexer: the commit's stream records")

    for k, n in ((0, 1), (10, 10), (24, 10)):  # 24: a turn's most
        turn = bench.begin(session)
        bench.events(turn, n, 200 + k)
        bench.add(turn, k, 300 + k)
        bench.measure(
            f"commit k={k} records, n={n} events", lambda t=turn: api.ok("POST", f"{t}/commit")
        )
        bench.index(f"indexer: commit k={k}, n={n}")

    turn = bench.begin(session)
    records = api.ok("GET", f"{A}/-/records", limit=5)["records"]
    bench.measure("tool read_memory", lambda: bench.tool(turn, "read_memory", id=records[0]["id"]))
    bench.measure(
        "tool search_memory (hybrid)",
        lambda: bench.tool(turn, "search_memory", query="when does the canary deploy run"),
    )
    bench.measure(
        "tool search_history (hybrid)",
        lambda: bench.tool(turn, "search_history", query="tuesday rollback"),
    )
    bench.measure(
        "recall",
        lambda: api.ok("POST", f"{turn}/recall", {"context": "user: how do we deploy the canary?"}),
    )
    bench.measure(
        "tool delete_memory (staged)",
        lambda: bench.tool(turn, "delete_memory", id=records[1]["id"]),
    )
    bench.measure(
        "tool memory create (staged file)",
        lambda: bench.tool(
            turn, "memory", command="create", path="/memories/a.md", file_text="# a\n"
        ),
    )
    bench.measure(
        "tool memory view",
        lambda: bench.tool(turn, "memory", command="view", path="/memories/a.md"),
    )
    bench.measure("commit k=1 delete + 1 file, n=0", lambda: api.ok("POST", f"{turn}/commit"))
    bench.index("indexer: delete + file commit")

    memories = f"{A}/-/memories"
    bench.measure(
        "file put (management API)",
        lambda: api.ok(
            "PUT", f"{memories}/notes.md", {"content": "# notes\nship on tuesday\n"}, expect=201
        ),
    )
    bench.measure("file get", lambda: api.ok("GET", f"{memories}/notes.md"))
    bench.index("indexer: file put")
    bench.measure("records list (management, 5)", lambda: api.ok("GET", f"{A}/-/records", limit=5))


def run_agents(bench: Bench) -> None:
    """Fork and delete at two sizes, so the per-item cost is the difference."""
    api = bench.api
    for size in (5, 20):
        agent = f"/v1/agents/bench/fork-{size}"
        api.ok("PUT", agent, MANIFEST, expect=201)
        s = api.ok("POST", f"{agent}/-/sessions", expect=201)["id"]
        turn = api.ok("POST", f"{agent}/-/sessions/{s}/turns", expect=201)["id"]
        path = f"{agent}/-/sessions/{s}/turns/{turn}"
        for i in range(size):
            api.ok(
                "POST",
                f"{path}/tools/add_memory",
                {"summary": sentence(i), "scope": "agent", "caller": CALLER},
            )
        api.ok("POST", f"{path}/commit")
        for i in range(size):
            api.ok("PUT", f"{agent}/-/memories/f{i}.md", {"content": sentence(i)}, expect=201)
        bench.shape.meter.take_stream()
        copy = f"bench/copy-{size}"
        bench.measure(
            f"agent fork ({size} records, {size} files)",
            lambda a=agent, c=copy: api.ok("POST", f"{a}/-/fork", {"id": c}, expect=201),
        )
        bench.index(f"indexer: fork of {size}+{size}")
        bench.measure(
            f"agent delete ({size} records, {size} files, 1 session)",
            lambda a=agent: api.call("DELETE", a),
        )
        bench.index(f"indexer: delete of {size}+{size}")


def run_extraction(bench: Bench, turns: int) -> None:
    """Reviewed turns: the commit, then its review run to the end by the state machine."""
    api = bench.api
    api.ok("PUT", A, MANIFEST, expect=201)
    session = bench.session()
    transitions = []
    for i in range(turns):
        turn = bench.begin(session)
        api.ok(
            "POST",
            f"{turn}/events",
            {
                "events": [
                    {"role": "user", "text": f"Remember that I prefer {WORDS[i]} on Fridays."}
                ]
            },
        )
        bench.measure(f"commit of reviewed turn {i}", lambda t=turn: api.ok("POST", f"{t}/commit"))
        histories = []
        bench.measure(
            f"extraction review {i}",
            lambda h=histories: h.extend(bench.shape.wait_for_executions()),
        )
        review = api.ok("GET", turn)["extraction"]
        row = bench.rows[f"extraction review {i}"]
        row["model_calls"] = review["modelCalls"]
        row["model_input_tokens"] = review["inputTokens"]
        row["model_output_tokens"] = review["outputTokens"]
        row["added"] = review["added"]
        last = histories[-1]["events"]
        row["state_transitions"] = sum(e["type"].endswith("StateEntered") for e in last)
        transitions.append(row["state_transitions"])
    bench.rows["extraction: state transitions, mean"] = {"mean": statistics.fmean(transitions)}


def run_s3vectors(rows: dict[str, dict[str, Any]]) -> None:
    """The S3 Vectors backend's own calls (SearchBackend=s3-vectors), on its index alone: what
    the indexer spends a document and a search spends a query, in place of OpenSearch's.
    QueryVectors is answered by tests/s3vectors_moto.py (exact search; moto has none)."""
    from datetime import UTC, datetime

    import pytest
    from moto import mock_aws

    from agent_memory.domain.search.index import IndexDoc, IndexFilter
    from aws_meter import AwsMeter, fake_vector
    from s3vectors_moto import install_query_vectors, s3vectors_index

    dims, table, tenant = 1024, "agent-memory-s3v", "bench"

    def doc(i: int, version: int = 1, vector: bool = True) -> IndexDoc:
        text = sentence(i)
        return IndexDoc(
            tenant=tenant,
            agent_id=AGENT,
            kind="record",
            id=f"r{i}",
            version=version,
            text=text,
            created_at=datetime(2026, 12, 1, tzinfo=UTC),
            vector=fake_vector(text, dims) if vector else None,
            model_id="amazon.titan-embed-text-v2:0" if vector else None,
        )

    with pytest.MonkeyPatch.context() as patch, mock_aws():
        install_query_vectors(patch)
        meter = AwsMeter(table)
        with s3vectors_index("us-east-1", table=table, dimensions=dims) as index:
            index.upsert([doc(i) for i in range(20)])  # an agent that has its index already
            with meter.installed():
                steps: list[tuple[str, Callable[[], Any]]] = [
                    ("s3-vectors: index a new document", lambda: index.upsert([doc(20)])),
                    (
                        "s3-vectors: a new version without a vector (status change)",
                        lambda: index.upsert([doc(20, version=2, vector=False)]),
                    ),
                    (
                        "s3-vectors: lexical search, 2 query words",
                        lambda: index.lexical(tenant, AGENT, "deploy rollback", IndexFilter(), 5),
                    ),
                    (
                        "s3-vectors: vector search",
                        lambda: index.vector(
                            tenant, AGENT, fake_vector("q", dims), IndexFilter(), 5
                        ),
                    ),
                    (
                        "s3-vectors: delete a document",
                        lambda: index.delete(tenant, AGENT, "record", ["r20"]),
                    ),
                ]
                for name, run in steps:
                    meter.take()
                    run()
                    rows[name] = {**meter.take().as_dict(), "note": "index alone, 10 words"}


def markdown(rows: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| operation | AWS calls | DynamoDB RRU / WRU | OpenSearch requests | Bedrock embed calls (tokens) | EventBridge entries |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        if "calls" not in row:
            continue
        calls = ", ".join(
            f"{op.split('.', 1)[1]} {n}"
            for op, n in row["calls"].items()
            if not op.startswith("bedrock-runtime")
        )
        search = ", ".join(f"{k} {v}" for k, v in row["opensearch"].items()) or "0"
        if row.get("opensearch_bulk_items"):
            search += f" ({row['opensearch_bulk_items']} bulk items)"
        embeds = row["calls"].get("bedrock-runtime.InvokeModel", 0)
        extra = f" ({row['stream_records']} stream records)" if "stream_records" in row else ""
        lines.append(
            f"| {name}{extra} | {calls or '0'} | {row['dynamodb_read_units']:g} / "
            f"{row['dynamodb_write_units']:g} | {search} | {embeds} ({row['bedrock_embed_tokens']}) "
            f"| {row['eventbridge_entries']} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="default: benchmarks/aws_calls.json")
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("--reviews", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="a few operations: seconds")
    args = parser.parse_args()
    if args.smoke and args.out is None:
        parser.error("--smoke writes a partial table: give it --out FILE")
    out = args.out or ROOT / "benchmarks" / "aws_calls.json"

    from cloud_shape import cloud_shape

    rows: dict[str, dict[str, Any]] = {}
    if not args.smoke:
        with cloud_shape(Path(tempfile.mkdtemp(prefix="aws-calls-"))) as shape:
            bench = Bench(shape)
            run_api(bench)
            run_agents(bench)
            rows.update(bench.rows)
    with cloud_shape(Path(tempfile.mkdtemp(prefix="aws-calls-")), execute=True) as shape:
        bench = Bench(shape)
        run_extraction(bench, 1 if args.smoke else args.reviews)
        rows.update(bench.rows)
    run_s3vectors(rows)
    out.write_text(json.dumps(rows, indent=1, sort_keys=False) + "\n")
    table = markdown(rows)
    if args.markdown:
        args.markdown.write_text(table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
