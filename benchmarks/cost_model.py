"""The cloud shape's monthly AWS bill at 1k, 100k and 10M agents, from a stated workload, the
AWS calls each operation was measured to make (benchmarks/aws_calls.json, written by
benchmarks/aws_calls.py) and public us-east-1 list prices (PRICES, one dated table).

    .venv/bin/python benchmarks/cost_model.py [--calls benchmarks/aws_calls.json] [--search all]

Prints, for each size, the bill by line, the dominant line and the cost per 1,000 turns, for
OpenSearch Serverless and for the search alternatives of docs/cost.md. docs/cost.md explains
every assumption; tests/unit/test_cost_model.py checks the arithmetic on a tiny workload.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

CALLS = Path(__file__).resolve().with_name("aws_calls.json")
HOURS_A_MONTH = 730
DAYS_A_MONTH = 30.4
GB = 1024**3

# -- prices: us-east-1 list prices, read 2026-12-01 (docs/cost.md cites each page) ------------
PRICES_CHECKED = "2026-12-01"
PRICES: dict[str, float] = {
    "lambda_gb_second_arm": 0.0000133334,  # USD per GB-s, arm64
    "lambda_request": 0.20 / 1e6,
    "apigw_http_request": 1.00 / 1e6,  # first 300M a month
    "dynamodb_rru": 0.125 / 1e6,  # on-demand read request unit
    "dynamodb_wru": 0.625 / 1e6,  # on-demand write request unit
    "dynamodb_gb_month": 0.25,
    "aoss_ocu_hour": 0.24,
    "aoss_gb_month": 0.024,
    "aoss_min_ocu": 2.0,  # 0.5 indexing + 0.5 search, each doubled by standby replicas
    "sfn_transition": 0.025 / 1000,  # Standard workflows
    "eventbridge_event": 1.00 / 1e6,  # custom events, per 64 KB chunk
    "sqs_request": 0.40 / 1e6,
    "s3_gb_month": 0.023,
    "titan_embed_token": 0.02 / 1e6,  # Titan Text Embeddings V2, input tokens
    "model_input_token": 1.00 / 1e6,  # Claude Haiku 4.5 on Bedrock
    "model_output_token": 5.00 / 1e6,
    "s3v_gb_month": 0.06,  # S3 Vectors logical storage
    "s3v_put_gb": 0.20,  # S3 Vectors PUT, per logical GB uploaded
    "s3v_query": 2.50 / 1e6,  # S3 Vectors QueryVectors request
    "s3v_query_tb": 0.004,  # S3 Vectors data processed a query, per TB (first 100k vectors)
    "os_t3_small_hour": 0.036,  # OpenSearch Service t3.small.search (2 GiB)
    "os_r6g_large_hour": 0.167,  # OpenSearch Service r6g.large.search (16 GiB)
    "os_gp3_gb_month": 0.122,  # OpenSearch Service gp3 EBS
}


@dataclass(frozen=True)
class Workload:
    """What each agent does (averages), and what the functions take (assumptions, stated)."""

    agents: int
    turns_per_day: float = 10
    events_per_turn: float = 4  # user, assistant, a tool call and its result
    appends_per_turn: float = 2  # requests carrying those events
    record_writes_per_turn: float = 0.3
    file_writes_per_turn: float = 0.05
    recalls_per_turn: float = 1
    searches_per_turn: float = 0.3  # search_memory
    history_searches_per_turn: float = 0.1
    reviewed_fraction: float = 1.0  # extraction every turn (the default `every: turn`)
    review_output_tokens: float = 150  # a real model's answer (the rule-based one says ~nothing)
    records_per_agent: float = 200
    files_per_agent: float = 10
    history_days: float = 90  # events kept, and indexed, per agent
    dimensions: int = 1024
    # Lambda: arm64, the template's memory sizes; durations are assumptions (no account here).
    api_gb: float = 1.0
    api_seconds: float = 0.06
    indexer_gb: float = 1.0
    indexer_seconds_per_doc: float = 0.05  # Bedrock embeddings, a few in parallel
    extraction_gb: float = 1.0
    extraction_seconds_per_model_call: float = 2.0
    extraction_seconds_per_task: float = 0.1
    # OpenSearch Serverless sizing (AWS publishes no per-OCU vector figure): HNSW memory per
    # vector 1.1 * (4 * d + 8 * m), m = 16, in half of a search OCU's 6 GiB, twice (standby).
    ocu_graph_bytes: float = 3 * GB
    hnsw_m: int = 16
    text_bytes_per_doc: float = 1024

    @property
    def turns_per_month(self) -> float:
        return self.agents * self.turns_per_day * DAYS_A_MONTH

    @property
    def docs_per_turn(self) -> float:
        """Documents a turn gives the indexer: its records and files, and its events while
        history is kept (history_days 0: memory only, no history indexed)."""
        events = self.events_per_turn if self.history_days > 0 else 0
        return self.record_writes_per_turn + self.file_writes_per_turn + events

    @property
    def docs_per_agent(self) -> float:
        events = self.turns_per_day * self.events_per_turn * self.history_days
        return self.records_per_agent + self.files_per_agent + events


@dataclass(frozen=True)
class Spend:
    """AWS quantities one operation spends (measured, or derived from measurements)."""

    requests: float = 0  # API Gateway requests = API Lambda invocations
    rru: float = 0
    wru: float = 0
    stored_bytes: float = 0
    embed_calls: float = 0
    embed_tokens: float = 0
    event_entries: float = 0
    start_executions: float = 0
    transitions: float = 0
    model_calls: float = 0
    model_input_tokens: float = 0
    lambda_tasks: float = 0  # invocations of background functions

    def __add__(self, other: Spend) -> Spend:
        return Spend(**{k: getattr(self, k) + getattr(other, k) for k in _FIELDS})

    def __mul__(self, factor: float) -> Spend:
        return Spend(**{k: getattr(self, k) * factor for k in _FIELDS})

    def __sub__(self, other: Spend) -> Spend:
        return self + other * -1


_FIELDS = list(Spend.__dataclass_fields__)


def spend_of(row: dict[str, Any], requests: float = 1) -> Spend:
    calls = row.get("calls", {})
    return Spend(
        requests=requests,
        rru=row.get("dynamodb_read_units", 0),
        wru=row.get("dynamodb_write_units", 0),
        stored_bytes=row.get("dynamodb_stored_bytes", 0),
        embed_calls=calls.get("bedrock-runtime.InvokeModel", 0),
        embed_tokens=row.get("bedrock_embed_tokens", 0),
        event_entries=row.get("eventbridge_entries", 0),
        start_executions=calls.get("stepfunctions.StartExecution", 0),
    )


@dataclass(frozen=True)
class Operations:
    """Per-operation spends, read from aws_calls.json."""

    begin: Spend
    append: Spend  # one request with one event
    event: Spend  # each further event in a request
    commit: Spend  # a turn with no record written
    record: Spend  # each record a commit writes, with its add_memory call
    changed: Spend  # what a commit that changed memory adds once (its memory events)
    file_write: Spend
    recall: Spend
    search: Spend
    history_search: Spend
    index_doc: Spend  # the indexer, per document (record, file, or event part)
    review: Spend  # extraction, per reviewed turn (the commit's start is in `commit`)

    @classmethod
    def load(cls, rows: dict[str, dict[str, Any]]) -> Operations:
        one, ten = (
            spend_of(rows["append 1 event"]),
            spend_of(rows["append 10 events (one request)"]),
        )
        k10, k24 = (
            rows["commit k=10 records, n=10 events"],
            rows["commit k=24 records, n=10 events"],
        )
        per_record = (spend_of(k24) - spend_of(k10)) * (1 / 14)
        indexed = rows["indexer: commit k=24, n=10"]
        reviews = [row for name, row in rows.items() if name.startswith("extraction review")]
        review = Spend(
            rru=statistics.fmean(r["dynamodb_read_units"] for r in reviews),
            wru=statistics.fmean(r["dynamodb_write_units"] for r in reviews),
            stored_bytes=statistics.fmean(r["dynamodb_stored_bytes"] for r in reviews),
            transitions=statistics.fmean(r["state_transitions"] for r in reviews),
            model_calls=statistics.fmean(r["model_calls"] for r in reviews),
            model_input_tokens=statistics.fmean(r["model_input_tokens"] for r in reviews),
            lambda_tasks=4,  # begin, propose, decide, apply
        )
        return cls(
            begin=spend_of(rows["begin"]),
            append=one,
            event=(ten - one) * (1 / 9),
            commit=spend_of(rows["commit k=0 records, n=1 events"]),
            record=per_record + spend_of(rows["tool add_memory (staged)"]),
            changed=Spend(
                event_entries=spend_of(k10).event_entries
                - spend_of(rows["commit k=0 records, n=1 events"]).event_entries
            ),
            file_write=spend_of(rows["file put (management API)"]),
            recall=spend_of(rows["recall"]),
            search=spend_of(rows["tool search_memory (hybrid)"]),
            history_search=spend_of(rows["tool search_history (hybrid)"]),
            index_doc=spend_of(indexed, requests=0) * (1 / (24 + 10)),
            review=review,
        )


def per_turn(ops: Operations, w: Workload) -> Spend:
    """What one turn spends, on average."""
    extra_events = max(0.0, w.events_per_turn - w.appends_per_turn)
    return (
        ops.begin
        + ops.append * w.appends_per_turn
        + ops.event * extra_events
        + ops.commit
        + ops.record * w.record_writes_per_turn
        + ops.changed * min(1.0, w.record_writes_per_turn)  # at most one change a turn
        + ops.file_write * w.file_writes_per_turn
        + ops.recall * w.recalls_per_turn
        + ops.search * w.searches_per_turn
        + ops.history_search * w.history_searches_per_turn
        + ops.index_doc * w.docs_per_turn
        + ops.review * w.reviewed_fraction
    )


def search_lines(w: Workload, queries: float, backend: str) -> dict[str, float]:
    """The search backend's monthly lines. `queries`: search requests a month."""
    p = PRICES
    docs = w.agents * w.docs_per_agent
    vector_bytes = 4 * w.dimensions
    if backend == "opensearch-serverless":
        graph = docs * 1.1 * (vector_bytes + 8 * w.hnsw_m)
        # AOSS scales a half OCU to one, then one at a time; the standby replica doubles it.
        needed = graph / w.ocu_graph_bytes
        search_ocu = 2 * (0.5 if needed <= 0.5 else math.ceil(needed))
        indexing_ocu = max(1.0, search_ocu / 4)  # ingest is a small share of the load
        ocu = max(p["aoss_min_ocu"], search_ocu + indexing_ocu)
        stored = docs * (vector_bytes + w.text_bytes_per_doc) / GB
        return {
            "OpenSearch Serverless OCUs": ocu * HOURS_A_MONTH * p["aoss_ocu_hour"],
            "OpenSearch Serverless storage": stored * p["aoss_gb_month"],
        }
    if backend == "s3-vectors":
        # One vector index per agent (a query is billed on the index's size), words in DynamoDB:
        # a posting item per (agent, word), ~40 distinct words a document, 1 WRU each.
        logical = vector_bytes + 200  # key and filterable metadata
        written = w.turns_per_month * w.docs_per_turn
        per_query_tb = w.docs_per_agent * logical / 1024**4
        return {
            "S3 Vectors storage": docs * logical / GB * p["s3v_gb_month"],
            "S3 Vectors PUT": written * logical / GB * p["s3v_put_gb"],
            "S3 Vectors queries": queries * (p["s3v_query"] + per_query_tb * p["s3v_query_tb"]),
            "DynamoDB word postings (writes)": written * 40 * p["dynamodb_wru"],
            "DynamoDB word postings (reads)": queries * 5 * 0.5 * p["dynamodb_rru"],
            "DynamoDB word postings (storage)": docs * 40 * 16 / GB * p["dynamodb_gb_month"],
        }
    if backend == "opensearch-domain":
        graph = docs * 1.1 * (vector_bytes + 8 * w.hnsw_m) * 2  # a replica on a second node
        if graph < 0.5 * GB:
            nodes, price = 2, p["os_t3_small_hour"]  # two t3.small: no HA guarantees
        else:
            nodes, price = max(3, math.ceil(graph / (8 * GB))), p["os_r6g_large_hour"]
        ebs = max(10.0, docs * (vector_bytes + w.text_bytes_per_doc) * 2 / GB)
        return {
            "OpenSearch domain instances": nodes * price * HOURS_A_MONTH,
            "OpenSearch domain EBS": ebs * p["os_gp3_gb_month"],
        }
    raise ValueError(backend)


def bill(ops: Operations, w: Workload, backend: str = "opensearch-serverless") -> dict[str, float]:
    """The monthly bill by line, in USD."""
    p = PRICES
    turns = w.turns_per_month
    s = per_turn(ops, w) * turns
    stored = w.agents * (
        w.records_per_agent * ops.record.stored_bytes
        + w.files_per_agent * ops.file_write.stored_bytes
        + w.turns_per_day * w.history_days * (per_turn(ops, w).stored_bytes - _record_bytes(ops, w))
    )
    api_gbs = s.requests * w.api_gb * w.api_seconds
    docs = turns * w.docs_per_turn
    review_seconds = (
        s.lambda_tasks * w.extraction_seconds_per_task
        + s.model_calls * w.extraction_seconds_per_model_call
    )
    background_gbs = (
        docs * w.indexer_gb * w.indexer_seconds_per_doc + review_seconds * w.extraction_gb
    )
    # The indexer and the dispatcher take stream batches (up to 100): at most an invocation a turn.
    background_requests = s.lambda_tasks + 2 * turns * w.reviewed_fraction
    queries = turns * (w.recalls_per_turn + w.searches_per_turn + w.history_searches_per_turn)
    lines = {
        "API Gateway (HTTP API)": s.requests * p["apigw_http_request"],
        "Lambda requests": (s.requests + background_requests) * p["lambda_request"],
        "Lambda API duration": api_gbs * p["lambda_gb_second_arm"],
        "Lambda background duration": background_gbs * p["lambda_gb_second_arm"],
        "DynamoDB reads": s.rru * p["dynamodb_rru"],
        "DynamoDB writes": s.wru * p["dynamodb_wru"],
        "DynamoDB storage": max(0.0, stored) / GB * p["dynamodb_gb_month"],
        "Bedrock embeddings": s.embed_tokens * p["titan_embed_token"],
        "Bedrock extraction model": s.model_input_tokens * p["model_input_token"]
        + s.model_calls * w.review_output_tokens * p["model_output_token"],
        "Step Functions": s.transitions * p["sfn_transition"],
        "EventBridge": s.event_entries * p["eventbridge_event"],
    }
    lines.update(search_lines(w, queries, backend))
    return lines


def _record_bytes(ops: Operations, w: Workload) -> float:
    """Bytes a turn's records and files add: priced apart, as the agent's standing memory."""
    return (
        ops.record.stored_bytes * w.record_writes_per_turn
        + ops.file_write.stored_bytes * w.file_writes_per_turn
    )


def summary(ops: Operations, w: Workload, backend: str) -> dict[str, Any]:
    lines = bill(ops, w, backend)
    total = sum(lines.values())
    dominant = max(lines, key=lambda k: lines[k])
    return {
        "agents": w.agents,
        "backend": backend,
        "turns_per_month": w.turns_per_month,
        "total_usd": total,
        "dominant": dominant,
        "dominant_share": lines[dominant] / total,
        "per_1000_turns_usd": 1000 * total / w.turns_per_month,
        "lines": lines,
    }


SIZES = (1_000, 100_000, 10_000_000)
BACKENDS = ("opensearch-serverless", "s3-vectors", "opensearch-domain")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=Path, default=CALLS)
    parser.add_argument("--search", choices=[*BACKENDS, "all"], default="all")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--dimensions", type=int, default=1024, choices=(256, 512, 1024))
    parser.add_argument(
        "--history-days", type=float, default=90, help="0: no history kept or indexed"
    )
    args = parser.parse_args()
    ops = Operations.load(json.loads(args.calls.read_text()))
    backends = BACKENDS if args.search == "all" else (args.search,)
    base = Workload(agents=0, dimensions=args.dimensions, history_days=args.history_days)
    results = [summary(ops, replace(base, agents=n), b) for b in backends for n in SIZES]
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    print(f"prices: us-east-1 list, read {PRICES_CHECKED}; workload: {base}\n")
    turn = per_turn(ops, replace(base, agents=1))
    print("one turn spends: " + ", ".join(f"{k} {getattr(turn, k):.2f}" for k in _FIELDS) + "\n")
    for backend in backends:
        rows = [r for r in results if r["backend"] == backend]
        print(f"### {backend}\n")
        print("| line | " + " | ".join(f"{r['agents']:,} agents" for r in rows) + " |")
        print("|---|" + "---|" * len(rows))
        for line in rows[0]["lines"]:
            print(f"| {line} | " + " | ".join(f"${r['lines'][line]:,.2f}" for r in rows) + " |")
        print(
            "| **total a month** | "
            + " | ".join(f"**${r['total_usd']:,.0f}**" for r in rows)
            + " |"
        )
        print(
            "| dominant | "
            + " | ".join(f"{r['dominant']} ({r['dominant_share']:.0%})" for r in rows)
            + " |"
        )
        print(
            "| per 1,000 turns | "
            + " | ".join(f"${r['per_1000_turns_usd']:.3f}" for r in rows)
            + " |\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
