"""The Store port's contract for consolidation runs: every test runs against SqliteStore and
DynamoStore (under moto)."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

import pytest

from agent_memory.domain.extraction.consolidation_models import (
    ConsolidationCounts,
    ConsolidationRun,
    PlannedAction,
    RunUsage,
)
from agent_memory.domain.kernel.errors import NotFound
from agent_memory.domain.kernel.ids import new_id
from agent_memory.domain.store import Store

if TYPE_CHECKING:
    from conftest import Build

pytestmark = pytest.mark.contract


def run(build: Build, agent_id: str, tenant: str = "acme") -> ConsolidationRun:
    return ConsolidationRun(
        tenant=tenant,
        agent_id=agent_id,
        id=new_id("con"),
        status="RUNNING",
        actor="api:tok_a",
        started_at=build.now,
    )


def finished(started: ConsolidationRun) -> ConsolidationRun:
    """The run as it ends, every field filled in."""
    return started.model_copy(
        update={
            "status": "DONE",
            "finished_at": started.started_at + timedelta(seconds=2),
            "counts": ConsolidationCounts(merged=1, superseded=1, kept=3, skipped=1),
            "actions": [
                PlannedAction(
                    action="merge", record_id="rec_2", kept_id="rec_1", version=1, reason="r"
                ),
                PlannedAction(
                    action="unpin", record_id="rec_3", version=2, reason="r", skipped="changed"
                ),
            ],
            "usage": [RunUsage(purpose="embed", model_id="m", input_tokens=12)],
            "failures": ["StorageUnavailable: busy"],
        }
    )


def test_runs_read_back_whole_newest_first_by_agent_and_tenant(store: Store, build: Build) -> None:
    # Given two agents of one tenant and one of another
    for agent_id, tenant in (("a", "acme"), ("b", "acme"), ("a", "globex")):
        store.create_agent(*build.agent(agent_id, tenant))
    first, second = run(build, "a"), run(build, "a")
    other, foreign = run(build, "b"), run(build, "a", "globex")
    for made in (first, second, other, foreign):
        store.save_consolidation(made)
    # When the first run is saved again as it ends
    done = finished(first)
    store.save_consolidation(done)
    # Then each agent lists its own runs, newest first, the saved-again one as it ended
    assert store.list_consolidations("acme", "a", 10, None) == [second, done]
    assert store.list_consolidations("acme", "a", 1, None) == [second]
    assert store.list_consolidations("acme", "a", 10, second.id) == [done]
    assert store.list_consolidations("acme", "b", 10, None) == [other]
    assert store.list_consolidations("globex", "a", 10, None) == [foreign]
    assert store.list_consolidations("acme", "c", 10, None) == []


def test_a_run_of_a_missing_agent_is_refused_and_a_deleted_agent_takes_its_runs(
    store: Store, build: Build
) -> None:
    with pytest.raises(NotFound):
        store.save_consolidation(run(build, "nobody"))
    store.create_agent(*build.agent("a"))
    store.save_consolidation(run(build, "a"))

    assert store.delete_agent("acme", "a")

    assert store.list_consolidations("acme", "a", 10, None) == []
    # Made again under its id, it starts with no runs
    store.create_agent(*build.agent("a"))
    assert store.list_consolidations("acme", "a", 10, None) == []
