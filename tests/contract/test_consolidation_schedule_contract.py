"""The ConsolidationSchedule port's contract: SqliteStore and DynamoStore (under moto) list the
same agents consolidated on a schedule, across tenants, as their manifests change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from agent_memory.domain.extraction.ports import ConsolidationSchedule
from agent_memory.domain.kernel.errors import PreconditionFailed
from agent_memory.domain.store import Store

if TYPE_CHECKING:
    from conftest import Build

pytestmark = pytest.mark.contract


def every(period: str) -> dict[str, Any]:
    return {"harness": {"memory": {"consolidation": {"every": period}}}}


def scheduled(store: Store) -> set[tuple[str, str, str]]:
    assert isinstance(store, ConsolidationSchedule)
    return set(store.scheduled_consolidations())


def test_lists_the_agents_whose_manifest_sets_every_across_tenants(
    store: Store, build: Build
) -> None:
    # Given two agents on a schedule in two tenants, and one agent without a schedule
    store.create_agent(*build.agent("agt_daily", manifest=every("P1D")))
    store.create_agent(*build.agent("agt_often", tenant="globex", manifest=every("PT6H")))
    store.create_agent(*build.agent("agt_never"))

    # Then exactly the two scheduled ones are listed, each with its own period
    assert scheduled(store) == {("acme", "agt_daily", "P1D"), ("globex", "agt_often", "PT6H")}


def test_a_manifest_save_adds_changes_and_drops_the_schedule(store: Store, build: Build) -> None:
    # Given a scheduled agent, another scheduled one, and one without a schedule
    daily, v1 = build.agent("agt_daily", manifest=every("P1D"))
    often, v2 = build.agent("agt_often", manifest=every("PT6H"))
    never, v3 = build.agent("agt_never")
    for agent, version in ((daily, v1), (often, v2), (never, v3)):
        store.create_agent(agent, version)

    # When the first drops its schedule, the second changes it and the third gains one
    store.save_manifest(*build.next_version(daily, {"memory": {"enabled": True}}), 1)
    store.save_manifest(*build.next_version(often, every("P7D")), 1)
    store.save_manifest(*build.next_version(never, every("PT1H")), 1)

    # Then the listing follows each current manifest
    assert scheduled(store) == {("acme", "agt_often", "P7D"), ("acme", "agt_never", "PT1H")}


def test_a_deleted_agent_leaves_the_schedule(store: Store, build: Build) -> None:
    # Given two scheduled agents
    store.create_agent(*build.agent("agt_gone", manifest=every("P1D")))
    store.create_agent(*build.agent("agt_kept", manifest=every("P1D")))

    # When one is deleted
    assert store.delete_agent("acme", "agt_gone")

    # Then only the other is listed
    assert scheduled(store) == {("acme", "agt_kept", "P1D")}


def test_a_refused_write_leaves_the_schedule_as_it_was(store: Store, build: Build) -> None:
    # Given an agent without a schedule
    agent, version = build.agent("agt_1")
    store.create_agent(agent, version)

    # When a second create of the same id, with a schedule, is refused
    with pytest.raises(PreconditionFailed):
        store.create_agent(*build.agent("agt_1", manifest=every("P1D")))
    # And, once a schedule is saved, a save against the stale version 1 is refused too
    store.save_manifest(*build.next_version(agent, every("P1D")), 1)
    with pytest.raises(PreconditionFailed):
        store.save_manifest(*build.next_version(agent, every("PT2H")), 1)

    # Then the schedule is the one of the manifest that was saved
    assert scheduled(store) == {("acme", "agt_1", "P1D")}
