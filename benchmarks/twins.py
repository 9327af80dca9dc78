"""Twin share: how much of an agent's memory says again what another of its records says.

    .venv/bin/python benchmarks/twins.py --db <data-dir>/agent-memory.sqlite3 [--at 0.90]

A record has a twin when another active record of the same agent has a summary whose cosine
with its own is at least `at` (all-MiniLM-L6-v2, the embedded shape's model). The share is the
records with a twin over all active records. `benchmarks/locomo.py --target extraction` reports
it per conversation beside recall (issue 35: at most 1% after the reviews); run as a script it
reads a kept data directory's database (`locomo.py --keep-data`).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_memory.domain.search.embeddings import Embedder

TWIN_AT = 0.90
EXAMPLES = 5


def twin_share(summaries: Sequence[str], embedder: Embedder, at: float = TWIN_AT) -> dict[str, Any]:
    """The share of `summaries` (one agent's active records) with a twin at cosine >= `at`,
    also at 0.85, and the closest pairs as examples."""
    if len(summaries) < 2:
        return {"records": len(summaries), "twins": 0, "share": 0.0, "share_085": 0.0, "pairs": []}
    vectors = embedder.embed(list(summaries)).vectors
    cosine = vectors @ vectors.T
    for i in range(len(summaries)):
        cosine[i, i] = -1.0
    best = cosine.max(axis=1)
    twins = int((best >= at).sum())
    pairs = sorted(
        {
            (round(float(cosine[i, j]), 3), summaries[min(i, j)], summaries[max(i, j)])
            for i in range(len(summaries))
            for j in [int(cosine[i].argmax())]
            if best[i] >= at
        },
        reverse=True,
    )[:EXAMPLES]
    return {
        "records": len(summaries),
        "twins": twins,
        "share": round(twins / len(summaries), 4),
        "share_085": round(float((best >= 0.85).sum()) / len(summaries), 4),
        "pairs": [list(p) for p in pairs],
    }


def local_embedder() -> Embedder:
    from agent_memory.adapters.embeddings.local import LocalEmbedder

    return LocalEmbedder()


def summaries_in(db: Path) -> dict[str, list[str]]:
    """Each agent's active record summaries in an embedded data directory's database."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT agent_id, json_extract(doc, '$.summary') FROM records WHERE status = 'ACTIVE'"
        ).fetchall()
    found: dict[str, list[str]] = {}
    for agent_id, summary in rows:
        found.setdefault(agent_id, []).append(summary)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--at", type=float, default=TWIN_AT)
    args = parser.parse_args(argv)
    embedder = local_embedder()
    report = {
        agent: twin_share(summaries, embedder, args.at)
        for agent, summaries in sorted(summaries_in(args.db).items())
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
