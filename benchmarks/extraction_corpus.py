"""Precision and recall of the rule-based review's decisions (add / replace / delete / skip) on
the corpus of tests/extraction_corpus.py: through RuleBasedModel alone, and end to end through
the extraction service on a SQLite store (lexical neighbours, or hybrid with --embedder).

    .venv/bin/python benchmarks/extraction_corpus.py [--embedder] [--misses]

Prints markdown tables for benchmarks/RESULTS.md: all cases, then the cases written after the
rules (group "held-out ..."), which the rules were not tuned to.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from agent_memory.adapters.sqlite import SqliteStore  # noqa: E402
from agent_memory.api.app import Api  # noqa: E402
from agent_memory.bootstrap import build_services  # noqa: E402
from agent_memory.settings import Settings  # noqa: E402
from apiclient import ApiClient  # noqa: E402
from extraction_corpus import CASES, Tally, run_model, run_service  # noqa: E402


def service_run(cases: list, embedder: bool) -> tuple[Tally, float]:
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "db.sqlite3")
        model = None
        if embedder:
            from agent_memory.adapters.embeddings.local import LocalEmbedder

            model = LocalEmbedder()
        services = build_services(Settings(data_dir=Path(tmp)), store=store, embedder=model)
        started = time.perf_counter()
        tally = run_service(ApiClient(Api(services).handle), services, cases)
        elapsed = time.perf_counter() - started
        store.close()
    return tally, elapsed


def report(title: str, tally: Tally, misses: bool) -> None:
    print(f"\n### {title}\n")
    print(tally.table())
    print(
        f"\ngarbled summaries: {len(tally.garbled)}; agent-scope facts replaced in session scope:"
        f" {len(tally.narrowed)}"
    )
    if misses and tally.misses:
        print("\n" + "\n".join(f"- {m}" for m in tally.misses))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedder", action="store_true", help="hybrid neighbours (MiniLM)")
    parser.add_argument("--misses", action="store_true", help="list every wrong decision")
    args = parser.parse_args()
    held_out = [c for c in CASES if c.group.startswith("held-out")]
    groups = sorted({c.group for c in CASES})
    print(f"{len(CASES)} conversations ({len(held_out)} held out); groups: {', '.join(groups)}")
    report("RuleBasedModel alone, all conversations", run_model(), args.misses)
    report("RuleBasedModel alone, held-out conversations", run_model(held_out), args.misses)
    tally, elapsed = service_run(list(CASES), args.embedder)
    search = "hybrid (MiniLM)" if args.embedder else "lexical"
    report(
        f"Extraction service on SQLite ({search} neighbours), all conversations", tally, args.misses
    )
    print(f"\n{len(CASES)} reviews in {elapsed:.1f} s")


if __name__ == "__main__":
    main()
