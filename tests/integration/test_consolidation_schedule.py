"""Consolidation on a schedule (harness.memory.consolidation.every), embedded shape: the worker
consolidates each agent whose period has come round since its newest run, once."""

import threading
from datetime import timedelta

import pytest
from test_api_consolidation import CONSOLIDATE, committed, head
from test_api_records import A, manifest

from agent_memory.adapters.consolidation_worker import ConsolidationWorker
from agent_memory.domain.extraction.consolidation import SCHEDULED
from agent_memory.domain.kernel.models import utcnow

pytestmark = pytest.mark.integration

OTHER = "/v1/agents/teams/web/other"


def test_an_agent_is_consolidated_when_its_period_comes_round_and_not_before(
    api, services, embedded
):
    # Given an agent consolidated every day holding a fact and its restatement, and an agent
    # with no schedule holding the same
    api.ok("PUT", A, manifest(consolidation={"every": "P1D"}), expect=201)
    short, full = committed(api, "Melanie paints", "Melanie paints landscapes at the lake")
    worker = services.consolidations
    assert worker is not None
    # When the worker looks, the agent has never been consolidated: it is due at once
    [run_id] = worker.run_due()
    # Then the run is kept as the schedule's, and the twin merged
    [run] = api.ok("GET", f"{A}/-/consolidations")["consolidations"]
    assert (run["id"], run["actor"], run["counts"]["merged"]) == (run_id, SCHEDULED, 1)
    assert head(api, short)["status"] == "SUPERSEDED"
    # And it is not due again within the day
    assert worker.run_due() == []
    assert worker.run_due(utcnow() + timedelta(hours=23)) == []
    # But is once the day has passed
    assert len(worker.run_due(utcnow() + timedelta(days=1, minutes=1))) == 1
    assert head(api, full)["status"] == "ACTIVE"


def test_a_run_an_app_asked_for_counts_and_agents_without_a_schedule_are_left_alone(
    api, services, embedded
):
    # Given an agent on a daily schedule just consolidated by an app, and one with no schedule
    api.ok("PUT", A, manifest(consolidation={"every": "P1D"}), expect=201)
    api.ok("PUT", OTHER, manifest(), expect=201)
    api.ok("POST", CONSOLIDATE)
    # When the worker looks, then nothing is due: the app's run started the period
    assert services.consolidations.run_due() == []
    assert api.ok("GET", f"{OTHER}/-/consolidations")["consolidations"] == []
    # And the schedule's next run comes a day after the app's
    later = services.consolidations.run_due(utcnow() + timedelta(days=1, seconds=1))
    assert len(later) == 1
    assert api.ok("GET", f"{OTHER}/-/consolidations")["consolidations"] == []


def test_building_the_services_starts_no_consolidation_thread_in_either_shape(services, store):
    # Given the services of either shape: both stores list their scheduled agents, so both
    # have a worker that can run the due consolidations when asked (the cloud's scheduled
    # function does, functions/consolidation/app.py)
    assert services.consolidations is not None
    # Then no thread runs them on its own: only the embedded server starts one (a Lambda
    # function's threads would freeze between invocations)
    running = [t.name for t in threading.enumerate()]
    assert ConsolidationWorker.thread_name not in running
