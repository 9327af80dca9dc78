"""Consolidation of an agent with 1,000 records (embedded shape, SQLite): wall time, model
calls, and whether the planted twins and contradictions are the ones it changed.

    .venv/bin/python benchmarks/consolidation.py [--records 1000] [--embed] [--out FILE] [--smoke]

The agent's records are agent-scope facts about `records / 10` people, written through the
store as commits leave them (words indexed with each, no vectors). Of every ten records of a
person: six distinct facts, two planted twins (a fact said again with a filler word, and one
said again with a word of its own left out), and a planted contradiction (the person's home
given twice, the older first). So at 1,000 records, 200 twins and 100 contradictions are
planted; a run should merge the twins, supersede the older homes and keep the other 700.

`--embed` compares with the offline embedder (all-MiniLM-L6-v2) where words alone do not
settle a pair, as the service does when it has one; without it words alone decide. The run is
timed through ConsolidationService as the route calls it, once. It prints one JSON object
(`--out FILE` writes it too); RESULTS.md keeps the figures. `--smoke` is the suite's run: 50
records.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "layers" / "core"))

from agent_memory.adapters.sqlite import SqliteStore  # noqa: E402
from agent_memory.bootstrap import build_services  # noqa: E402
from agent_memory.domain.kernel.ids import new_id  # noqa: E402
from agent_memory.domain.kernel.models import utcnow  # noqa: E402
from agent_memory.domain.manifests.manifest import Manifest  # noqa: E402
from agent_memory.domain.records.models import (  # noqa: E402
    Provenance,
    Record,
    RecordOperation,
    RecordQuery,
    RecordVersion,
    RecordWrite,
)
from agent_memory.services import Services  # noqa: E402
from agent_memory.settings import Settings  # noqa: E402

TENANT, AGENT = "acme", "bench/consolidation"
FACTS = [
    "{p} plays the violin",
    "{p} collects vintage stamps",
    "{p} runs half marathons",
    "{p} volunteers at the animal shelter",
    "{p} studies marine biology",
    "{p} bakes sourdough bread",
]
CITIES = ["Paris", "Rome", "Lisbon", "Oslo", "Vienna", "Prague", "Dublin", "Madrid"]


def person(i: int) -> str:
    """A one-word name per person (the subject a summary is read as being about)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return "P" + letters[i % 26] + letters[(i // 26) % 26] + letters[(i // 676) % 26]


def summaries(people: int) -> tuple[list[tuple[str, str]], int, int]:
    """(kind, summary) in the order written; how many twins and contradictions are planted."""
    out: list[tuple[str, str]] = []
    twins = contradictions = 0
    for i in range(people):
        p = person(i)
        out += [("fact", f.format(p=p)) for f in FACTS]
        out.append(("fact", FACTS[0].format(p=p) + " really"))  # restates with a filler word
        out.append(("fact", f"{p} collects stamps"))  # says less than the vintage one
        twins += 2
        out.append(("fact", f"{p} lives in {CITIES[i % len(CITIES)]}"))
        out.append(("fact", f"{p} lives in {CITIES[(i + 1) % len(CITIES)]}"))  # the newer home
        contradictions += 1
    return out, twins, contradictions


def build(services: Services, people: int) -> tuple[int, int, int]:
    manifest = Manifest.model_validate(
        {"harness": {"memory": {"enabled": True, "scope": {"read": ["agent"], "write": ["agent"]}}}}
    )
    services.agents.put(TENANT, AGENT, manifest)
    store, search = services.store, services.records.search
    by = Provenance(actor="benchmark:load")
    texts, twins, contradictions = summaries(people)
    start = utcnow() - timedelta(hours=1)
    writes = []
    for n, (kind, summary) in enumerate(texts):
        at = start + timedelta(milliseconds=n)
        record = Record(
            tenant=TENANT,
            agent_id=AGENT,
            id=new_id("rec"),
            scope="agent",
            summary=summary,
            kind=kind,
            provenance=by,
            created_at=at,
            updated_at=at,
        )
        version = RecordVersion(
            record=record, operation=RecordOperation.CREATE, changed_by=by, at=at
        )
        doc = search.doc_without_vector(record) if search.inline else None
        writes.append(
            RecordWrite(record=record, expected_version=None, versions=[version], index=doc)
        )
    for i in range(0, len(writes), 100):
        store.write_records(TENANT, AGENT, writes[i : i + 100])
    return len(texts), twins, contradictions


def run(people: int, embed: bool, data_dir: Path) -> dict[str, Any]:
    store = SqliteStore(data_dir / "bench.sqlite3")
    embedder: Any = None
    if embed:
        from agent_memory.adapters.embeddings.local import LocalEmbedder

        embedder = LocalEmbedder()
        embedder.load()
    services = build_services(
        Settings(data_dir=data_dir), store=store, embedder=embedder, model=None
    )
    try:
        records, twins, contradictions = build(services, people)
        assert services.consolidation is not None
        began = time.perf_counter()
        result = services.consolidation.consolidate(TENANT, AGENT, actor="benchmark:run")
        wall = time.perf_counter() - began
        active = services.store.find_records(TENANT, AGENT, _active(), records + 1, None)
        homes = [r for r in active if " lives in " in r.summary]
        index = {person(i): i for i in range(people)}
        return {
            "records": records,
            "planted_twins": twins,
            "planted_contradictions": contradictions,
            "embedder": embedder.model_id if embedder else None,
            "wall_s": round(wall, 3),
            "model_calls": sum(1 for u in result.usage if u.purpose == "memory"),
            "embed_calls": sum(1 for u in result.usage if u.purpose == "embed"),
            "counts": result.counts.model_dump(),
            "active_after": len(active),
            "expected_active": records - twins - contradictions,
            # Each person's newer home is the one kept.
            "newer_homes_kept": len(homes) == people
            and all(
                r.summary.endswith(CITIES[(index[r.summary.split()[0]] + 1) % len(CITIES)])
                for r in homes
            ),
        }
    finally:
        services.close()


def _active() -> RecordQuery:
    return RecordQuery(include_all_sessions=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument(
        "--embed", action="store_true", help="compare meaning where words do not settle"
    )
    parser.add_argument("--out", type=Path)
    parser.add_argument("--smoke", action="store_true", help="the suite's run: a few seconds")
    args = parser.parse_args(argv)
    if args.smoke:
        args.records = 50
    with tempfile.TemporaryDirectory(prefix="consolidation-") as tmp:
        result = run(max(1, args.records // 10), args.embed, Path(tmp))
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
