"""Writes that lose every race give up with their own 409, after their own number of tries,
having changed nothing: on both stores, each store write made to lose every time."""

from __future__ import annotations

import pytest

from agent_memory.domain.agents.service import parse_manifest
from agent_memory.domain.extraction.job import ExtractionJob
from agent_memory.domain.kernel.errors import Conflict, DomainError, PreconditionFailed
from agent_memory.domain.kernel.where import SessionRef

pytestmark = pytest.mark.integration

T, A = "acme", "teams/web/releases"


@pytest.fixture
def losing(store, monkeypatch):
    """Make the store's `method` lose every race; returns how many times it was called."""
    tries: list[str] = []

    def lose(method: str) -> list[str]:
        def lost(*_args, **_kwargs):
            tries.append(method)
            raise PreconditionFailed(f"{method} lost a race")

        monkeypatch.setattr(store, method, lost)
        return tries

    return lose


@pytest.fixture
def session(services):
    services.agents.put(T, A, parse_manifest({}))
    return services.sessions.create(T, A, None, {}).id


def test_a_begin_that_keeps_losing_its_sequence_is_session_busy(services, session, losing):
    tries = losing("begin_turn")
    with pytest.raises(Conflict) as raised:
        services.sessions.begin_turn(T, A, session)
    assert (raised.value.code, raised.value.message) == (
        "session_busy",
        "too many turns began at once on this session; try again",
    )
    assert len(tries) == 50
    assert services.sessions.get(SessionRef(T, A, session)).last_sequence == 0


def test_a_commit_that_keeps_losing_is_turn_busy_and_the_turn_stays_open(services, session, losing):
    turn = services.sessions.begin_turn(T, A, session)
    tries = losing("end_turn")
    with pytest.raises(Conflict) as raised:
        services.sessions.commit(turn.ref)
    assert (raised.value.code, raised.value.message) == (
        "turn_busy",
        "the turn's writes kept conflicting with other turns; commit again",
    )
    assert len(tries) == 50
    assert services.sessions.get_turn(turn.ref).status.value == "open"


@pytest.mark.parametrize("method", ["create_agent", "save_manifest"])
def test_a_manifest_save_that_keeps_losing_is_agent_busy(services, losing, method):
    if method == "save_manifest":
        services.agents.put(T, A, parse_manifest({}))
    tries = losing(method)
    with pytest.raises(Conflict) as raised:
        services.agents.put(T, A, parse_manifest({"description": "second"}))
    assert (raised.value.code, raised.value.message) == (
        "agent_busy",
        "the agent was changed concurrently too many times; try again",
    )
    assert len(tries) == 5
    version = services.store.get_agent(T, A)
    assert (version is None) if method == "create_agent" else version.manifest_version == 1


def test_a_memory_put_that_keeps_losing_is_memory_busy(services, session, losing):
    tries = losing("write_files")
    with pytest.raises(Conflict) as raised:
        services.files.put(T, A, "/memories/notes.md", "hello", None, "app")
    assert (raised.value.code, raised.value.message) == (
        "memory_busy",
        "the memory is changing too fast; try again",
    )
    assert len(tries) == 10
    assert services.store.get_file(T, A, "/memories/notes.md") is None


def test_a_memory_delete_that_keeps_losing_is_memory_busy(services, session, losing):
    services.files.put(T, A, "/memories/notes.md", "hello", None, "app")
    tries = losing("write_files")
    with pytest.raises(Conflict) as raised:
        services.files.delete(T, A, "/memories/notes.md", "app")
    assert (raised.value.code, raised.value.message) == (
        "memory_busy",
        "the memories are changing too fast; try again",
    )
    assert len(tries) == 10
    assert services.store.get_file(T, A, "/memories/notes.md").content == "hello"


def test_a_record_delete_that_keeps_losing_is_record_busy(api, losing):
    path = "/v1/agents/" + A
    memory = {"enabled": True, "scope": {"read": ["agent"], "write": ["agent"]}}
    api.ok("PUT", path, {"harness": {"memory": {**memory, "tools": ["add_memory"]}}}, expect=201)
    session = api.ok("POST", f"{path}/-/sessions", expect=201)["id"]
    turn = api.ok("POST", f"{path}/-/sessions/{session}/turns", expect=201)["id"]
    at = f"{path}/-/sessions/{session}/turns/{turn}"
    added = api.ok(
        "POST", f"{at}/tools/add_memory", {"summary": "renews in May", "caller": {"role": "agent"}}
    )
    record = added["output"]["memories"][0]["id"]
    api.ok("POST", f"{at}/commit")
    tries = losing("write_records")
    status, body = api.call("DELETE", f"{path}/-/records/{record}")
    assert (status, body["error"]["code"], body["error"]["message"]) == (
        409,
        "record_busy",
        "the record is changing too fast; try again",
    )
    assert len(tries) == 10
    assert api.ok("GET", f"{path}/-/records/{record}")["status"] == "ACTIVE"


def test_a_review_whose_records_keep_changing_is_left_for_its_retry(api, services, losing):
    path = "/v1/agents/" + A
    memory = {"enabled": True, "scope": {"read": ["agent"], "write": ["agent"]}}
    api.ok("PUT", path, {"harness": {"memory": memory}}, expect=201)
    session = api.ok("POST", f"{path}/-/sessions", expect=201)["id"]
    turn = api.ok("POST", f"{path}/-/sessions/{session}/turns", expect=201)["id"]
    at = f"{path}/-/sessions/{session}/turns/{turn}"
    api.ok("POST", f"{at}/events", {"events": [{"role": "user", "text": "I live in Lisbon."}]})
    api.ok("POST", f"{at}/commit")
    review, job = services.extraction, ExtractionJob(T, A, session, turn)
    review.begin(job)
    proposal = review.propose(job)
    decision = review.decide(job, proposal)
    tries = losing("finish_extraction")
    with pytest.raises(DomainError) as raised:
        review.apply(job, proposal, decision)
    assert type(raised.value) is DomainError
    assert raised.value.message == "the review's records kept changing under it; it will be retried"
    assert len(tries) == 10
    assert api.ok("GET", f"{path}/-/records")["records"] == []
