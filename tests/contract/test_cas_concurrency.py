"""Fifty compare-and-swap writers on one memory path, on both stores (DynamoDB under moto)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest

from agent_memory.adapters.events.local_bus import InProcessBus
from agent_memory.domain.files.service import FileLimits, FileService, MemoryConflict
from agent_memory.domain.kernel.models import Agent, ManifestVersion
from agent_memory.domain.search.service import SearchService
from agent_memory.domain.store import Store

pytestmark = pytest.mark.contract


def test_fifty_writers_one_winner_per_precondition(store: Store) -> None:
    now = datetime.now(UTC)
    store.create_agent(
        Agent(
            tenant="acme",
            id="teams/web",
            manifest_version=1,
            manifest={},
            created_at=now,
            updated_at=now,
        ),
        ManifestVersion(agent_id="teams/web", version=1, manifest={}, created_at=now),
    )
    files = FileService(store, InProcessBus(), FileLimits(), SearchService(None, None, False))
    # The seed's content is none of the writers' (writer 0 writes "0\n"): a winner writing the
    # seed's bytes again would leave the seed's sha current, and a second writer holding it win too.
    files.put("acme", "teams/web", "counter.md", "seed\n", "", actor="test")
    barrier = threading.Barrier(50)
    outcomes: list[tuple[bool, str]] = []
    lock = threading.Lock()

    def writer(n: int) -> None:
        seen = files.get("acme", "teams/web", "counter.md").content_sha256
        barrier.wait()
        try:
            files.put("acme", "teams/web", "counter.md", f"{n}\n", seen, actor=f"w{n}")
            won = True
        except MemoryConflict as exc:
            assert exc.details["current"]["contentSha256"] != seen
            won = False
        with lock:
            outcomes.append((won, seen))

    with ThreadPoolExecutor(max_workers=50) as pool:
        list(pool.map(writer, range(50)))

    wins: dict[str, int] = {}
    for won, seen in outcomes:
        wins[seen] = wins.get(seen, 0) + won
    assert len(outcomes) == 50
    assert all(count == 1 for count in wins.values())
    final = files.get("acme", "teams/web", "counter.md")
    assert final.version == 1 + sum(wins.values())
    versions = store.file_versions("acme", "teams/web", "/memories/counter.md", 200, None)
    assert sorted(v.version for v in versions) == list(range(1, final.version + 1))
    assert versions[0].content == final.content  # no lost write
