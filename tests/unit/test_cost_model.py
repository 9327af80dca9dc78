"""benchmarks/cost_model.py's arithmetic on a workload small enough to price by hand, and its
reading of the measured calls (benchmarks/aws_calls.json)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

# Loaded by its path: putting benchmarks/ first on sys.path would make its extraction_corpus.py
# shadow the tests' own for every test collected after this one.
_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "cost_model.py"
_SPEC = importlib.util.spec_from_file_location("cost_model", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
cost_model = importlib.util.module_from_spec(_SPEC)
sys.modules["cost_model"] = cost_model  # its dataclasses look their module up
_SPEC.loader.exec_module(cost_model)
PRICES, Operations, Spend = cost_model.PRICES, cost_model.Operations, cost_model.Spend
Workload, bill, summary = cost_model.Workload, cost_model.bill, cost_model.summary

NOTHING = Spend()
# Ten agents, one turn a day each, and nothing in a turn but its begin and its review.
NONE_A_TURN = (
    "events_per_turn appends_per_turn record_writes_per_turn file_writes_per_turn "
    "recalls_per_turn searches_per_turn history_searches_per_turn"
).split()
TINY = Workload(
    agents=10,
    turns_per_day=1,
    records_per_agent=2,
    files_per_agent=0,
    history_days=30,
    **dict.fromkeys(NONE_A_TURN, 0),
)
TURNS = 10 * 1 * cost_model.DAYS_A_MONTH  # 304 turns a month


def ops(**spends: Spend) -> Operations:
    fields = {name: NOTHING for name in Operations.__dataclass_fields__}
    return Operations(**{**fields, **spends})


def test_a_tiny_workload_is_priced_line_by_line():
    # Given a begin of 1 request, 8 read and 4 write units, and a review of 6 transitions, one
    # model call of 400 input tokens and 4 task invocations
    o = ops(
        begin=Spend(requests=1, rru=8, wru=4),
        review=Spend(transitions=6, model_calls=1, model_input_tokens=400, lambda_tasks=4),
    )
    # When the month is priced
    lines = bill(o, TINY)
    # Then each line is the turns times the unit's price
    assert lines["API Gateway (HTTP API)"] == pytest.approx(TURNS * 1e-6)
    assert lines["DynamoDB reads"] == pytest.approx(TURNS * 8 * 0.125e-6)
    assert lines["DynamoDB writes"] == pytest.approx(TURNS * 4 * 0.625e-6)
    assert lines["Step Functions"] == pytest.approx(TURNS * 6 * 0.025e-3)
    assert lines["Bedrock extraction model"] == pytest.approx(TURNS * (400 * 1e-6 + 150 * 5e-6))
    # 1 API request, 4 tasks, and at most an indexer and a dispatcher invocation a turn.
    assert lines["Lambda requests"] == pytest.approx(TURNS * (1 + 4 + 2) * 0.2e-6)
    assert lines["Lambda API duration"] == pytest.approx(
        TURNS * 0.06 * PRICES["lambda_gb_second_arm"]
    )
    review_seconds = 4 * 0.1 + 1 * 2.0
    assert lines["Lambda background duration"] == pytest.approx(
        TURNS * review_seconds * PRICES["lambda_gb_second_arm"]
    )
    assert lines["Bedrock embeddings"] == 0 and lines["EventBridge"] == 0
    # and a search index of 20 documents sits at OpenSearch Serverless's floor of 2 OCUs.
    assert lines["OpenSearch Serverless OCUs"] == pytest.approx(2 * 730 * 0.24)


def test_the_summary_names_the_dominant_line_and_the_price_of_a_thousand_turns():
    o = ops(begin=Spend(requests=1, rru=8, wru=4))
    result = summary(o, TINY, "opensearch-serverless")
    assert result["dominant"] == "OpenSearch Serverless OCUs"
    assert result["total_usd"] == pytest.approx(sum(result["lines"].values()))
    assert result["per_1000_turns_usd"] == pytest.approx(1000 * result["total_usd"] / TURNS)


def test_storage_is_the_standing_memory_plus_the_history_kept():
    # A record leaves 2 KiB, a turn's begin 1 KiB: 2 records an agent, 30 days of 1 turn kept.
    o = ops(record=Spend(stored_bytes=2048), begin=Spend(stored_bytes=1024))
    stored = 10 * (2 * 2048 + 30 * 1024)
    assert bill(o, TINY)["DynamoDB storage"] == pytest.approx(stored / 1024**3 * 0.25)


def test_s3_vectors_has_no_floor():
    lines = bill(ops(), TINY, "s3-vectors")
    assert sum(v for k, v in lines.items() if k.startswith("S3 Vectors")) < 0.01


def test_the_measured_calls_load_into_operations():
    rows = json.loads(cost_model.CALLS.read_text())
    o = Operations.load(rows)
    assert o.commit.start_executions == 1  # every reviewed turn starts one execution
    assert o.review.transitions == 6
    assert o.index_doc.embed_calls == pytest.approx(1)  # one embedding a document
    assert o.search.embed_calls == 1 and o.recall.embed_calls == 1
