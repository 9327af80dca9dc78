"""The embedded extraction worker: a bounded in-memory queue in front of the reviews the SQLite
file keeps queued, so nothing is lost to a full queue or a restart."""

from __future__ import annotations

import time

from agent_memory.adapters.extraction.worker import ExtractionWorker
from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.domain.extraction.job import ExtractionJob
from agent_memory.settings import Settings
from apiclient import ApiClient

A = "/v1/agents/teams/web/releases"


def open_services(tmp_path, **settings):
    store = SqliteStore(tmp_path / "db.sqlite3")
    services = build_services(
        Settings(data_dir=tmp_path, extraction_backoff_seconds=0, **settings),
        store=store,
        embedder=None,
    )
    return services, ApiClient(Api(services).handle)


def reviewed_turn(api, text="I live in Lisbon."):
    if api.call("GET", A)[0] == 404:
        api.ok("PUT", A, {"harness": {"memory": {"enabled": True}}}, expect=201)
    s = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    t = api.ok("POST", f"{A}/-/sessions/{s}/turns", expect=201)
    path = f"{A}/-/sessions/{s}/turns/{t['id']}"
    api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": text}]})
    committed = api.ok("POST", f"{path}/commit")
    assert committed["extraction"]["status"] == "queued"
    return path


def status(api, path):
    return api.ok("GET", path)["extraction"]["status"]


def test_queued_reviews_survive_a_restart(tmp_path):
    services, api = open_services(tmp_path)
    path = reviewed_turn(api)
    services.close()  # stopped before the worker ran it

    services, api = open_services(tmp_path)
    assert status(api, path) == "queued"
    assert services.drain_extractions() == 1  # found in the file, not in the (empty) queue
    assert status(api, path) == "done"
    assert [r["summary"] for r in api.ok("GET", f"{A}/-/records")["records"]] == [
        "User lives in Lisbon"
    ]
    services.close()


def test_a_review_interrupted_while_running_is_run_again_after_a_restart(tmp_path):
    services, api = open_services(tmp_path)
    path = reviewed_turn(api)
    [pending] = services.store.pending_extractions(10)
    services.extraction.begin(ExtractionJob.of(pending))
    assert status(api, path) == "running"
    services.close()  # as if the process died mid-review

    services, api = open_services(tmp_path)
    assert services.drain_extractions() == 1
    review = api.ok("GET", path)["extraction"]
    assert (review["status"], review["attempts"]) == ("done", 2)
    services.close()


def test_a_full_queue_leaves_reviews_queued_in_the_store(tmp_path):
    services, api = open_services(tmp_path, extraction_queue_size=1)
    paths = [reviewed_turn(api, f"I live in city {i}.") for i in range(3)]
    worker = services.starter
    assert isinstance(worker, ExtractionWorker)
    assert worker.backlog == 1  # bounded: the other two wait in the file
    assert services.drain_extractions() == 3
    assert [status(api, p) for p in paths] == ["done"] * 3
    services.close()


def test_the_background_worker_reviews_committed_turns(tmp_path):
    services, api = open_services(tmp_path)
    worker = services.starter
    worker.run_in_background()
    try:
        path = reviewed_turn(api)
        deadline = time.monotonic() + 20
        while status(api, path) != "done":
            assert time.monotonic() < deadline, api.ok("GET", path)
            time.sleep(0.05)
    finally:
        services.close()
    assert worker.backlog == 0


def test_without_a_pending_scan_the_worker_runs_what_it_was_handed(tmp_path):
    # DynamoDB has no pending scan (the cloud uses Step Functions): the worker runs its queue.
    services, api = open_services(tmp_path)
    path = reviewed_turn(api)
    worker = ExtractionWorker(services.extraction, None, queue_size=10)
    assert worker.drain() == 0  # not handed the job, and no scan to find it
    [pending] = services.store.pending_extractions(10)
    worker.start(ExtractionJob.of(pending))
    worker.start(ExtractionJob.of(pending))  # queued once
    assert worker.drain() == 1
    assert status(api, path) == "done"
    services.close()


def test_extraction_can_be_turned_off(tmp_path):
    services, api = open_services(tmp_path, extraction_model="none")
    api.ok("PUT", A, {"harness": {"memory": {"enabled": True}}}, expect=201)
    s = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    t = api.ok("POST", f"{A}/-/sessions/{s}/turns", expect=201)
    path = f"{A}/-/sessions/{s}/turns/{t['id']}"
    api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": "I live in Lisbon."}]})
    assert api.ok("POST", f"{path}/commit")["extraction"] is None
    assert services.extraction is None and services.drain_extractions() == 0
    services.close()


def test_a_review_whose_agent_was_deleted_meanwhile_is_dropped(tmp_path):
    services, api = open_services(tmp_path)
    reviewed_turn(api)
    [pending] = services.store.pending_extractions(10)
    api.ok("DELETE", A, expect=204)
    # The queued review finds no turn: nothing to do, nothing retried, nothing left queued.
    assert services.extraction.run(ExtractionJob.of(pending)) is None
    assert services.drain_extractions() == 1  # the commit's wake-up, run once, not retried
    assert services.store.pending_extractions(10) == []
    assert services.drain_extractions() == 0
    services.close()


def test_the_worker_outlives_a_queue_it_cannot_read(tmp_path):
    services, api = open_services(tmp_path)
    calls = []

    def pending(limit):
        calls.append(limit)
        if len(calls) == 1:
            raise RuntimeError("database is busy")
        return services.store.pending_extractions(limit)

    worker = ExtractionWorker(services.extraction, pending, poll_seconds=0.02)
    worker.run_in_background()
    try:
        path = reviewed_turn(api)  # queued by the commit in the store, not handed to this worker
        deadline = time.monotonic() + 20
        while status(api, path) != "done":
            assert time.monotonic() < deadline, calls
            time.sleep(0.02)
    finally:
        worker.stop()
        services.close()
    assert len(calls) >= 2  # the failed read was tried again


def test_an_idle_worker_wakes_at_once_for_a_job_and_for_stop(tmp_path):
    # A minute-long poll: the job and the stop must each wake the worker, not the poll.
    services, api = open_services(tmp_path)
    path = reviewed_turn(api)
    [pending] = services.store.pending_extractions(10)
    worker = ExtractionWorker(services.extraction, None, poll_seconds=60)
    worker.run_in_background()
    try:
        time.sleep(0.2)  # idle, waiting on an empty queue
        worker.start(ExtractionJob.of(pending))
        deadline = time.monotonic() + 20
        while status(api, path) != "done":
            assert time.monotonic() < deadline, api.ok("GET", path)
            time.sleep(0.02)
        time.sleep(0.2)  # idle again
    finally:
        began = time.monotonic()
        worker.stop()
        stopped_in = time.monotonic() - began
        services.close()
    assert stopped_in < 10
