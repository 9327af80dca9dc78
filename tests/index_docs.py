"""Search documents as the search index tests write them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from agent_memory.domain.search.index import IndexDoc

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def doc(doc_id: str, text: str, **fields: Any) -> IndexDoc:
    """A record's document of tenant t1 and agent teams/web, agent scope, version 1, made at T0;
    `fields` change any of that."""
    values: dict[str, Any] = {
        "tenant": "t1",
        "agent_id": "teams/web",
        "kind": "record",
        "id": doc_id,
        "version": 1,
        "text": text,
        "created_at": T0,
    }
    values.update(fields)
    return IndexDoc(**values)
