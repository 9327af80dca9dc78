"""Export and import of one LongMemEval dev haystack agent (about 500 events): events per second
each way, and whether every read answers the same after.

    nice .venv/bin/python benchmarks/export_import.py [--question N] [--mode hybrid|lexical] \
        [--cloud] [--data FILE] [--out FILE]

One question's haystack (about 50 sessions, 500 messages) is loaded into an embedded server
(`agent-memory serve`) through `POST /v1/ingest`, as benchmarks/longmemeval.py loads it, and,
in hybrid mode, every event embedded. The agent is then exported to a bundle through the API
(`GET .../-/export`, as `agent-memory export` does) and imported into a second, empty embedded
server (`POST .../-/import`, as `agent-memory import` does; same model, so the bundle's vectors
are used as they are). With `--cloud`, it is also imported into the cloud shape under moto
(tests/cloud_shape.py: DynamoDB, OpenSearch on osmem-server, the stream indexer and Bedrock
embeddings answered in-process), whose figures say what this code costs, not what AWS's
latency would add. Under moto each request costs more as the table grows (its transactions
copy the table; 80 turns took 61 s imported, 119 s through the turn routes), so a whole
haystack there takes tens of minutes and gigabytes: give `--cloud` a small haystack. After each import the reads are compared: manifest versions, sessions, each
session's turns and history, and a history search for the question.

Prints (and with --out writes) one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

from locomo import ROOT, EmbeddedServer, wait_for_vectors  # noqa: E402 - beside this file
from longmemeval import (  # noqa: E402 - beside this file
    DEFAULT_DATA,
    ingest,
    ingest_messages,
    load_questions,
    manifest,
)

from agent_memory.bundle import export_bundle, import_bundle  # noqa: E402

PREFIX = "bench/transfer"


def reads(call: Any, agent_id: str, question: str) -> dict[str, Any]:
    """What a caller reads of the agent (`call(method, path, **query)` answers JSON)."""
    base = f"/v1/agents/{agent_id}"
    out: dict[str, Any] = {"manifests": call("GET", f"{base}/-/manifest-versions")["versions"]}
    sessions: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = call(
            "GET", f"{base}/-/sessions", limit=200, **({"cursor": cursor} if cursor else {})
        )
        sessions += page["sessions"]
        cursor = page.get("next")
        if not cursor:
            break
    out["sessions"] = sessions
    for session in sessions:
        path = f"{base}/-/sessions/{session['id']}"
        out[f"turns {session['id']}"] = call("GET", f"{path}/turns")["turns"]
        out[f"history {session['id']}"] = call("GET", f"{path}/history", limit=200)
    found = call("GET", f"{base}/-/history", query=question, limit=10)["events"]
    out["history search"] = [(e["id"], e["session"]) for e in found]
    return out


def _client_call(client: Any) -> Any:
    def call(method: str, path: str, **query: Any) -> Any:
        return client.request(method, path, query=query or None)

    return call


def run(args: argparse.Namespace) -> dict[str, Any]:
    question = load_questions(Path(args.data))[args.question]
    agent_id = f"{PREFIX}/{question['question_id']}"
    messages, _ = ingest_messages(agent_id, question, "sessions")
    events = sum(len(m["events"]) for m in messages if m["op"] == "events")
    if args.mode == "lexical":
        os.environ["AGENT_MEMORY_EMBEDDINGS"] = "none"  # nothing to embed: words only
    work = Path(tempfile.mkdtemp(prefix="export-import-"))
    bundle = work / "agent.bundle"
    source, target = EmbeddedServer().start(), EmbeddedServer().start()
    try:
        with source.client() as client:
            client.put_agent(agent_id, manifest(args.mode, "sessions"))
            started = time.perf_counter()
            ingest(client, messages)
            if args.mode != "lexical":
                wait_for_vectors(client, agent_id)
            loaded = time.perf_counter() - started
            started = time.perf_counter()
            exported = export_bundle(
                bundle, [agent_id], lambda a, c: client.agents.export_page(a, c, limit=500)
            )
            export_s = time.perf_counter() - started
            before = reads(_client_call(client), agent_id, question["question"])
        with target.client() as client:
            started = time.perf_counter()
            imported = import_bundle(bundle, client.agents.import_items)
            import_s = time.perf_counter() - started
            if args.mode != "lexical":
                wait_for_vectors(client, agent_id)
            settled_s = time.perf_counter() - started
            after = reads(_client_call(client), agent_id, question["question"])
    finally:
        source.stop()
        target.stop()
    result: dict[str, Any] = {
        "question_id": question["question_id"],
        "mode": args.mode,
        "events": events,
        "exported_events": exported.events,
        "items": exported.items,
        "sections": exported.sections,
        "bundle_bytes": bundle.stat().st_size,
        "load_s": round(loaded, 2),
        "export_s": round(export_s, 3),
        "export_events_per_s": round(exported.events / export_s, 1),
        "import_s": round(import_s, 3),
        "import_events_per_s": round(exported.events / import_s, 1),
        "import_settled_s": round(settled_s, 3),
        "vectors_reused": imported.vectors_reused,
        "vectors_queued": imported.vectors_queued,
        "reads_equal": after == before,
    }
    if args.cloud:
        # What is known so far is kept should the cloud shape's run not end (moto is slow).
        print(json.dumps(result), file=sys.stderr, flush=True)
        result["cloud"] = cloud_import(bundle, agent_id, question["question"], before, exported)
    return result


def cloud_import(
    bundle: Path, agent_id: str, question: str, before: dict[str, Any], exported: Any
) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    from cloud_shape import cloud_shape

    with cloud_shape(Path(tempfile.mkdtemp(prefix="export-import-cloud-"))) as shape:
        api = shape.api
        (bundle.parent / "agent.bundle.import-state").unlink(missing_ok=True)
        started = time.perf_counter()
        imported = import_bundle(
            bundle,
            lambda agent, items: api.ok("POST", f"/v1/agents/{agent}/-/import", {"items": items}),
        )
        import_s = time.perf_counter() - started
        started = time.perf_counter()
        shape.index_stream()
        indexed_s = time.perf_counter() - started
        after = reads(lambda m, p, **q: api.ok(m, p, **q), agent_id, question)
    same_but_search = {k: v for k, v in after.items() if k != "history search"}
    return {
        "import_s": round(import_s, 3),
        "import_events_per_s": round(exported.events / import_s, 1),
        "stream_indexed_s": round(indexed_s, 3),
        "written": imported.written,
        # Another model (Titan, answered in-process) ranks the search: only what is stored
        # must answer the same.
        "stored_reads_equal": same_but_search
        == {k: v for k, v in before.items() if k != "history search"},
        "search_top1_equal": after["history search"][:1] == before["history search"][:1],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--question", type=int, default=0, help="which question's haystack")
    parser.add_argument("--mode", choices=("hybrid", "lexical"), default="hybrid")
    parser.add_argument("--cloud", action="store_true", help="also import into the cloud shape")
    parser.add_argument("--out")
    args = parser.parse_args()
    result = run(args)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    ok = result["reads_equal"] and ("cloud" not in result or result["cloud"]["stored_reads_equal"])
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
