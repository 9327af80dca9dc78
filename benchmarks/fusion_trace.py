"""The features of every history search's candidates, written to a file as the server ranks:
what benchmarks/train_fusion.py fits the learned fusion on.

The benchmark's embedded server runs through embedding_cache.py; with FUSION_TRACE set to a
file (and AGENT_MEMORY_SEARCH_FUSION=learned, so the search computes its fusion signals), each
search appends one JSON line: the agent, the query, and each candidate's part id, its features
(domain/search/fusion.FEATURES) and where its event is (session, turn and event sequence, and
the LoCoMo `dia_id` its metadata carries). The search keeps its hand-set order, so the run's
own figures are the hand-set ones. A benchmark tool, never product code.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

_lock = threading.Lock()


def trace_to(path: Path) -> None:
    """Make every history search of this process append its candidates to `path`."""
    from agent_memory.domain.history.search import HistorySearch
    from agent_memory.domain.search import features

    def traced(self: Any, ranked: list[Any], signals: Any, events: Any) -> list[Any]:
        events.read([c for c in ranked if not events.known(c)])
        rows = []
        for candidate, row in zip(ranked, features(ranked, signals), strict=True):
            event = events.get(candidate)
            rows.append(
                {
                    "id": candidate.id,
                    "x": [round(v, 6) for v in row],
                    "at": None
                    if event is None
                    else [
                        event.session_id,
                        event.turn_sequence,
                        event.sequence,
                        event.metadata.get("dia_id"),
                    ],
                }
            )
        line = json.dumps({"agent": events._agent_id, "query": signals.query, "candidates": rows})
        with _lock, path.open("a") as out:
            out.write(line + "\n")
        return ranked

    HistorySearch._fused = traced  # type: ignore[method-assign]
