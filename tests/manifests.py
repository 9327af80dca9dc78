"""Manifests as the end-to-end tests and benchmarks save them."""

from __future__ import annotations

from typing import Any


def memory_manifest(history: str | None = "messages_and_tools", **memory: Any) -> dict[str, Any]:
    """A manifest whose memory is on, reads and writes the session and agent scopes and offers
    the three memory tools; `memory` adds or changes its memory settings, and `history` is the
    history index (None: no history section at all)."""
    harness: dict[str, Any] = {
        "memory": {
            "enabled": True,
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "tools": ["add_memory", "read_memory", "delete_memory"],
            **memory,
        }
    }
    if history is not None:
        harness["history"] = {"index": history}
    return {"harness": harness}
