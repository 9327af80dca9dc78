"""As-of reads against plain reads: an agent's record listing now, and as it stood at a past
instant, at 1,000 records with 10 versions each (embedded shape, SQLite).

    .venv/bin/python benchmarks/as_of.py [--records 1000] [--versions 10] [--reads 200] \
        [--limit 50] [--out FILE] [--smoke]

The agent's records are written through the store as a commit and an app leave them: each
record created (ids minted as it is made, its index document written with it, words only: the
listing reads no vectors), then `--versions - 1` rounds in which every record gets a new version
(an app moving its expiresAt, operation set_expiry). `mid` is an instant between the rounds,
half-way through the history, so every record has changed since and an as-of read must find
each one's version then; `start` is just after the records were made (the first version).

Series (p50/p90/p99/mean in ms over `--reads` calls, after five warm-up calls each, the series
interleaved call by call), each through RecordService.list_records as the route calls it, the
page serialised as the route answers it:

- `plain`: the first page of the listing now (`limit` records, newest first).
- `as_of_now`: `asOf` = now: the heads are the answer; no version is read.
- `as_of_mid`: `asOf` = `mid`: each of the page's records read at its version then.
- `as_of_start`: `asOf` = `start`: the first versions.
- `plain_deep` / `as_of_mid_deep`: the page after the first half of the records (a cursor).
- `plain_ranked` / `as_of_mid_ranked`: ranked by a query (`query=`), words only.

It prints one JSON object (`--out FILE` writes it too) with `as_of_mid_over_plain`, the ratio
of the p50s (the target is within 2x); RESULTS.md keeps the figures. `--smoke` is the suite's
run: 40 records of 3 versions, 10 reads a series.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "layers" / "core"))

from agent_memory.adapters.sqlite import SqliteStore  # noqa: E402
from agent_memory.api.schemas import RecordList  # noqa: E402
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

TENANT = "bench"
AGENT = "bench/as-of"
BATCH = 250
TOPICS = ["billing", "releases", "onboarding", "security", "pricing", "support", "hiring"]


def summarize(seconds: list[float]) -> dict[str, Any]:
    ms = sorted(s * 1000 for s in seconds)
    at = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]  # noqa: E731
    return {
        "n": len(ms),
        "p50": round(statistics.median(ms), 3),
        "p90": round(at(0.90), 3),
        "p99": round(at(0.99), 3),
        "mean": round(statistics.fmean(ms), 3),
    }


def timed(series: dict[str, Callable[[], Any]], reads: int) -> dict[str, dict[str, Any]]:
    """Each series `reads` times, interleaved call by call, so that whatever else the machine
    does at a moment weighs on every series alike."""
    for call in series.values():
        for _ in range(5):
            call()
    seconds: dict[str, list[float]] = {name: [] for name in series}
    for _ in range(reads):
        for name, call in series.items():
            started = time.perf_counter()
            call()
            seconds[name].append(time.perf_counter() - started)
    return {name: summarize(values) for name, values in seconds.items()}


def build(services: Services, records: int, versions: int) -> dict[str, datetime]:
    """The agent and its history; the instants the series read at."""
    manifest = Manifest.model_validate({"harness": {"memory": {"enabled": True}}})
    services.agents.put(TENANT, AGENT, manifest)
    store, search = services.store, services.records.search
    by = Provenance(actor="benchmark:load")
    heads: list[Record] = []
    for start in range(0, records, BATCH):
        writes = []
        for i in range(start, min(records, start + BATCH)):
            now = utcnow()
            record = Record(
                tenant=TENANT,
                agent_id=AGENT,
                id=new_id("rec"),
                scope="agent",
                summary=f"Fact {i} about {TOPICS[i % len(TOPICS)]}: customer c-{i} renews in May",
                content=f"Evidence for fact {i}.",
                kind="fact",
                labels={"topic": TOPICS[i % len(TOPICS)]},
                provenance=by,
                created_at=now,
                updated_at=now,
            )
            version = RecordVersion(
                record=record, operation=RecordOperation.CREATE, changed_by=by, at=now
            )
            doc = search.doc_without_vector(record)
            writes.append(
                RecordWrite(record=record, expected_version=None, versions=[version], index=doc)
            )
        store.write_records(TENANT, AGENT, writes)
        heads += [w.record for w in writes]
    instants = {"start": utcnow()}
    for round_ in range(1, versions):
        if round_ == versions // 2:
            instants["mid"] = utcnow()
        for start in range(0, len(heads), BATCH):
            writes = []
            for i in range(start, min(len(heads), start + BATCH)):
                head, now = heads[i], utcnow()
                changed = head.model_copy(
                    update={
                        "version": head.version + 1,
                        "updated_at": now,
                        "expires_at": datetime(2100, 1, 1, tzinfo=UTC).replace(year=2100 + round_),
                    }
                )
                version = RecordVersion(
                    record=changed, operation=RecordOperation.SET_EXPIRY, changed_by=by, at=now
                )
                writes.append(
                    RecordWrite(record=changed, expected_version=head.version, versions=[version])
                )
                heads[i] = changed
            store.write_records(TENANT, AGENT, writes)
    instants.setdefault("mid", instants["start"])
    instants["now"] = utcnow()
    return instants


def run(records: int, versions: int, reads: int, limit: int, data_dir: Path) -> dict[str, Any]:
    store = SqliteStore(data_dir / "db.sqlite3")
    services = build_services(Settings(data_dir=data_dir), store=store, embedder=None, model=None)
    try:
        started = time.perf_counter()
        at = build(services, records, versions)
        load_s = time.perf_counter() - started
        listing = services.records
        query = RecordQuery(include_all_sessions=True)

        def page(
            text: str | None = None, as_of: datetime | None = None, cursor: str | None = None
        ) -> Callable[[], Any]:
            def call() -> str:
                found = listing.list_records(TENANT, AGENT, query, text, limit, cursor, as_of=as_of)
                return RecordList(records=found.items, next=found.next).model_dump_json(
                    by_alias=True
                )

            return call

        def cursor_after(count: int, as_of: datetime | None) -> str | None:
            """The cursor of the page after the first `count` records."""
            cursor, seen = None, 0
            while seen < count:
                size = min(100, count - seen)
                found = listing.list_records(TENANT, AGENT, query, None, size, cursor, as_of=as_of)
                cursor, seen = found.next, seen + len(found.items)
            return cursor

        series = {
            "plain": page(),
            "as_of_now": page(as_of=at["now"]),
            "as_of_mid": page(as_of=at["mid"]),
            "as_of_start": page(as_of=at["start"]),
            "plain_deep": page(cursor=cursor_after(records // 2, None)),
            "as_of_mid_deep": page(as_of=at["mid"], cursor=cursor_after(records // 2, at["mid"])),
            "plain_ranked": page(text="customer renews billing"),
            "as_of_mid_ranked": page(text="customer renews billing", as_of=at["mid"]),
        }
        # What each as-of page holds: the same records, at the version then.
        mid = listing.list_records(TENANT, AGENT, query, None, limit, None, as_of=at["mid"])
        now = listing.list_records(TENANT, AGENT, query, None, limit, None)
        checks = {
            "same_records": [r.id for r in mid.items] == [r.id for r in now.items],
            "versions_then": sorted({r.version for r in mid.items}),
            "versions_now": sorted({r.version for r in now.items}),
        }
        timings = timed(series, reads)
        return {
            "records": records,
            "versions_each": versions,
            "limit": limit,
            "reads": reads,
            "load_s": round(load_s, 2),
            "checks": checks,
            "series_ms": timings,
            "as_of_mid_over_plain": round(timings["as_of_mid"]["p50"] / timings["plain"]["p50"], 2),
            "as_of_mid_deep_over_plain_deep": round(
                timings["as_of_mid_deep"]["p50"] / timings["plain_deep"]["p50"], 2
            ),
            "as_of_mid_ranked_over_plain_ranked": round(
                timings["as_of_mid_ranked"]["p50"] / timings["plain_ranked"]["p50"], 2
            ),
        }
    finally:
        services.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--versions", type=int, default=10)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--smoke", action="store_true", help="the suite's run: a few seconds")
    args = parser.parse_args(argv)
    if args.smoke:
        args.records, args.versions, args.reads, args.limit = 40, 3, 10, 10
    with tempfile.TemporaryDirectory(prefix="as-of-") as tmp:
        result = run(args.records, args.versions, args.reads, args.limit, Path(tmp))
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
