"""The secret guard (issue 17, item 4): accuracy and speed of our detector against detect-secrets
on tests/secrets_corpus.py, and what scanning adds to a 4 KB memory write.

    .venv/bin/pip install -e '.[bench]'     # detect-secrets, for the comparison
    .venv/bin/python benchmarks/secret_guard.py [--writes 400]

Accuracy: a secret counts as found when the detector reports anything in its text (ours must
also name its kind, reported apart); a look-alike counts as a false positive when anything is
reported in it. detect-secrets runs with its default plugins and filters, as `detect-secrets
scan` would, line by line (`scan_line`, its ad hoc API) and through `SecretsCollection`
over a file a text (its filters: ids, sequential strings, templates ...).

The write: `PUT /v1/agents/{id}/-/memories/{path}` of 4 KB of prose through the resolver
(Api.handle) on SQLite, alternately without the guard (`off`: the scan skipped) and with it
(`block`); the p50 of each and their difference, in wall time and in the request thread's CPU time
(steadier on a shared machine), and the scan of that content alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from agent_memory.api.app import Api  # noqa: E402
from agent_memory.bootstrap import build_services  # noqa: E402
from agent_memory.domain.files import service as files_service
from agent_memory.domain.secrets import scan  # noqa: E402
from agent_memory.settings import Settings  # noqa: E402
from apiclient import http_event  # noqa: E402
from secrets_corpus import LOOKALIKES, SECRETS, _english  # noqa: E402


def accuracy(found: Callable[[str], bool]) -> dict[str, Any]:
    hits = sum(found(text) for text, _ in SECRETS)
    false = sum(found(text) for text in LOOKALIKES)
    return {
        "secrets": len(SECRETS),
        "lookalikes": len(LOOKALIKES),
        "found": hits,
        "false_positives": false,
        "recall": round(hits / len(SECRETS), 3),
        "precision": round(hits / (hits + false), 3) if hits + false else None,
    }


def per_text_us(found: Callable[[str], Any], texts: list[str], rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for text in texts:
            found(text)
        best = min(best, time.perf_counter() - start)
    return round(best / len(texts) * 1e6, 1)


def detect_secrets_finders() -> dict[str, Callable[[str], bool]]:
    from detect_secrets import SecretsCollection
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    folder = Path(tempfile.mkdtemp())

    def by_line(text: str) -> bool:
        with default_settings():
            return any(any(True for _ in scan_line(line)) for line in text.splitlines())

    def by_file(text: str) -> bool:
        path = folder / "text.txt"
        path.write_text(text)
        collection = SecretsCollection()
        with default_settings():
            collection.scan_file(str(path))
        return bool(list(collection))

    return {"detect-secrets scan_line": by_line, "detect-secrets SecretsCollection": by_file}


def write_p50(writes: int) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp())
    services = build_services(Settings(data_dir=folder, embeddings="none", extraction_model="none"))
    api = Api(services)
    content = ""
    while len(content.encode()) < 4096:
        content += _english() + ".\n"
    content = content.encode()[:4096].decode(errors="ignore")
    for mode in ("off", "block"):
        body = {"harness": {"memory": {"enabled": True, "secrets": mode}}}
        api.handle(http_event("PUT", f"/v1/agents/bench/{mode}", body), None)
    # A write scans its content before it reads the agent's mode (a clean write then costs no
    # manifest read), so `off` scans too: the baseline here skips the guard altogether.
    guard = files_service.secrets
    skipping = {"now": False}

    class Guard:
        record_fields = guard.record_fields

        @staticmethod
        def check(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
            return [] if skipping["now"] else guard.check(*args, **kwargs)

    files_service.secrets = Guard  # type: ignore[assignment]
    # Wall time, and the request thread's own CPU time: on a shared machine the second is
    # what the scan adds, without the waits for a core that other processes cause.
    wall: dict[str, list[float]] = {"off": [], "block": []}
    cpu: dict[str, list[float]] = {"off": [], "block": []}
    for n in range(writes):
        for mode in ("off", "block") if n % 2 else ("block", "off"):
            event = http_event(
                "PUT", f"/v1/agents/bench/{mode}/-/memories/n{n}.md", {"content": content}
            )
            skipping["now"] = mode == "off"
            start, start_cpu = time.perf_counter(), time.thread_time()
            result = api.handle(event, None)
            cpu[mode].append(time.thread_time() - start_cpu)
            wall[mode].append(time.perf_counter() - start)
            assert result["statusCode"] == 201, result
    services.close()
    files_service.secrets = guard  # type: ignore[assignment]
    p50 = {mode: statistics.median(t) * 1000 for mode, t in wall.items()}
    p50_cpu = {mode: statistics.median(t) * 1000 for mode, t in cpu.items()}
    return {
        "writes_each": writes,
        "bytes": len(content.encode()),
        "p50_ms_off": round(p50["off"], 3),
        "p50_ms_block": round(p50["block"], 3),
        "p50_added_ms": round(p50["block"] - p50["off"], 3),
        "p50_cpu_ms_off": round(p50_cpu["off"], 3),
        "p50_cpu_ms_block": round(p50_cpu["block"], 3),
        "p50_cpu_added_ms": round(p50_cpu["block"] - p50_cpu["off"], 3),
        "scan_alone_us": per_text_us(scan, [content] * 200),
        "loadavg": Path("/proc/loadavg").read_text().split()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=400)
    args = parser.parse_args()
    texts = [t for t, _ in SECRETS] + LOOKALIKES
    ours = accuracy(lambda t: bool(scan(t)))
    ours["kind_named"] = sum([f.kind for f in scan(t)] == [k] for t, k in SECRETS)
    ours["us_per_text"] = per_text_us(scan, texts)
    report: dict[str, Any] = {"ours": ours}
    try:
        finders = detect_secrets_finders()
    except ImportError:
        report["detect-secrets"] = "not installed (pip install -e '.[bench]')"
    else:
        for name, finder in finders.items():
            result = accuracy(finder)
            result["us_per_text"] = per_text_us(finder, texts, rounds=1)
            missed: dict[str, int] = {}
            for text, kind in SECRETS:
                if not finder(text):
                    missed[kind] = missed.get(kind, 0) + 1
            result["missed_by_kind"] = missed
            report[name] = result
    report["write_4kb"] = write_p50(args.writes)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
