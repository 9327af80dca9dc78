"""Post-turn extraction through the API, on SQLite and on DynamoDB (moto): a committed turn is
reviewed, restated facts are skipped, corrections replace, and a review never fails its turn.

The embedded worker is not running here; `services.drain_extractions()` runs the queued
reviews in the test's thread, exactly as the worker's thread would."""

from __future__ import annotations

import dataclasses

import pytest

from agent_memory.adapters.models.rule_based import RuleBasedModel
from agent_memory.bootstrap import build_services
from agent_memory.domain.extraction.job import ExtractionJob
from agent_memory.domain.extraction.model import (
    Candidate,
    Decision,
    Existing,
    MemoryModel,
    Message,
    ModelResult,
    ModelUnavailable,
    ModelUsage,
)
from agent_memory.settings import Settings
from apiclient import ApiClient, drained

A = "/v1/agents/teams/web/releases"
AGENT = {"role": "agent"}


def manifest(**memory):
    return {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
                **memory,
            }
        }
    }


def setup(api, **memory) -> str:
    api.ok("PUT", A, manifest(**memory), expect=201)
    return api.ok("POST", f"{A}/-/sessions", expect=201)["id"]


def turn(api, session, *texts, role="user", commit=True, **begin):
    t = api.ok("POST", f"{A}/-/sessions/{session}/turns", begin, expect=201)
    path = f"{A}/-/sessions/{session}/turns/{t['id']}"
    if texts:
        api.ok("POST", f"{path}/events", {"events": [{"role": role, "text": x} for x in texts]})
    if commit:
        return api.ok("POST", f"{path}/commit")
    return t


def turn_detail(api, session, turn_id):
    return api.ok("GET", f"{A}/-/sessions/{session}/turns/{turn_id}")


def active(api):
    return api.ok("GET", f"{A}/-/records")["records"]


def test_a_committed_turn_is_reviewed_into_memories(api, services):
    s = setup(api)
    committed = turn(api, s, "I live in Lisbon. I prefer tea over coffee. What time is it?")
    # The commit queues the review in its own transaction; it has not run yet.
    assert committed["status"] == "committed"
    assert committed["extraction"]["status"] == "queued"
    assert (committed["extraction"]["fromTurn"], committed["extraction"]["through"]) == (0, 1)
    assert active(api) == []

    assert services.drain_extractions() == 1
    review = turn_detail(api, s, committed["id"])["extraction"]
    assert review["status"] == "done"
    assert (review["added"], review["modelCalls"], review["attempts"]) == (2, 2, 1)
    assert review["inputTokens"] > 0 and review["outputTokens"] > 0

    records = active(api)
    assert sorted(r["summary"] for r in records) == [
        "User lives in Lisbon",
        "User prefers tea over coffee",
    ]
    event_ids = api.ok("GET", f"{A}/-/sessions/{s}/history")["events"]
    for record in records:
        # Attributed to the turn that said it, citing the message; in agent scope, since they
        # hold beyond this conversation and the agent writes agent scope.
        assert (record["scope"], record["sessionId"]) == ("agent", None)
        assert record["provenance"]["turnId"] == committed["id"]
        assert record["provenance"]["execution"] == f"extraction:{committed['id']}"
        assert record["provenance"]["sources"] == [event_ids[0]["id"]]

    usage = api.ok("GET", f"{A}/-/usage", turnId=committed["id"])
    memory_calls = [u for u in usage["usage"] if u["purpose"] == "memory"]
    assert [u["modelId"] for u in memory_calls] == ["rule-based", "rule-based"]

    # A later turn of the session recalls what the review kept.
    later = turn(api, s, commit=False)
    found = api.ok(
        "POST", f"{A}/-/sessions/{s}/turns/{later['id']}/recall", {"context": "where do I live"}
    )
    assert "User lives in Lisbon" in [r["summary"] for r in found["records"]]


def test_restated_facts_are_skipped_and_corrections_replace(api, services):
    s = setup(api)
    turn(api, s, "I live in Lisbon.")
    services.drain_extractions()
    [lisbon] = active(api)

    again = turn(api, s, "I live in Lisbon.")
    services.drain_extractions()
    review = turn_detail(api, s, again["id"])["extraction"]
    assert (review["added"], review["skipped"]) == (0, 1)
    assert [r["id"] for r in active(api)] == [lisbon["id"]]

    correction = turn(api, s, "Actually, I live in Porto now.")
    services.drain_extractions()
    review = turn_detail(api, s, correction["id"])["extraction"]
    assert review["replaced"] == 1
    [porto] = active(api)
    assert porto["replaces"] == lisbon["id"] and "Porto" in porto["summary"]
    old = api.ok("GET", f"{A}/-/records/{lisbon['id']}")
    assert (old["status"], old["replacedBy"]) == ("SUPERSEDED", porto["id"])


def test_a_correction_of_an_agent_scope_memory_stays_in_agent_scope(api, services):
    api.ok("PUT", A, manifest(tools=["add_memory"]), expect=201)
    s = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    first = turn(api, s, commit=False)
    path = f"{A}/-/sessions/{s}/turns/{first['id']}"
    body = {"summary": "User lives in Lisbon", "scope": "agent", "caller": AGENT}
    lisbon = api.ok("POST", f"{path}/tools/add_memory", body)["output"]["memories"][0]
    api.ok("POST", f"{path}/commit")
    # The review reads "User lives in Porto now" as a correction of the agent-scope memory.
    turn(api, s, "Actually, I live in Porto now.")
    services.drain_extractions()
    [porto] = active(api)
    assert porto["replaces"] == lisbon["id"]
    # Replaced in session scope, every other session would lose where the user lives.
    assert (porto["scope"], porto["sessionId"]) == ("agent", None)


DURABLE_AND_SESSION_ONLY = (
    "I prefer dark mode in every tool. For this session, I'm working on the 2.4 release notes."
)


@pytest.mark.parametrize(
    ("write", "dark_mode", "release_notes"),
    [
        (["session", "agent"], "agent", "session"),  # the review chooses each fact's scope
        (["session"], "session", "session"),  # never agent scope unless write includes it
        (["agent"], "agent", "agent"),  # an agent writing agent scope alone
    ],
)
def test_the_offline_review_keeps_lasting_facts_for_every_session(
    api, services, write, dark_mode, release_notes
):
    # Given an agent writing `write`, and a turn that says a lasting fact and one tied to it
    s = setup(api, scope={"read": ["session", "agent"], "write": write})
    turn(api, s, DURABLE_AND_SESSION_ONLY)
    # When the rule-based review runs
    services.drain_extractions()
    # Then each is written in the scope it belongs to, within what the manifest allows
    scopes = {r["summary"]: (r["scope"], r["sessionId"]) for r in active(api)}
    assert scopes == {
        "User prefers dark mode in every tool": (dark_mode, s if dark_mode == "session" else None),
        "User is working on the 2.4 release notes": (
            release_notes,
            s if release_notes == "session" else None,
        ),
    }


def test_a_session_only_replacement_of_an_agent_scope_memory_is_added_beside_it(store, tmp_path):
    # Given an agent-scope memory, and a model that reads a state of this conversation as its
    # correction, in session scope
    def replace_what_is_shown(candidates, neighbours):
        return [Decision(candidate=0, action="replace", target=neighbours[0][0].id, reason="r")]

    model = Scripted(
        candidates=[
            Candidate(summary="User lives in Madrid this week", kind="fact", scope="session")
        ],
        decisions=replace_what_is_shown,
    )
    api, services = scripted_api(store, tmp_path, model)
    api.ok("PUT", A, manifest(tools=["add_memory"]), expect=201)
    s = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    first = turn(api, s, commit=False)
    path = f"{A}/-/sessions/{s}/turns/{first['id']}"
    body = {"summary": "User lives in Lisbon", "scope": "agent", "caller": AGENT}
    lisbon = api.ok("POST", f"{path}/tools/add_memory", body)["output"]["memories"][0]
    api.ok("POST", f"{path}/commit")
    # When the review applies it
    reviewed = turn(api, s, "I'm in Madrid this week.")
    services.drain_extractions()
    # Then the lasting memory stays for every other session, the new one beside it here
    review = turn_detail(api, s, reviewed["id"])["extraction"]
    assert (review["status"], review["added"], review["replaced"]) == ("done", 1, 0)
    assert api.ok("GET", f"{A}/-/records/{lisbon['id']}")["status"] == "ACTIVE"
    [madrid] = [r for r in active(api) if r["id"] != lisbon["id"]]
    assert (madrid["scope"], madrid["sessionId"], madrid["replaces"]) == ("session", s, None)


def test_every_n_messages_reviews_once_enough_were_added(api, services):
    s = setup(api, extraction={"every": {"messages": 3}})
    first = turn(api, s, "I live in Lisbon.", "I work as a nurse.")
    assert first["extraction"] is None  # 2 of 3 messages: not due
    rolled = turn(api, s, "I own a boat.", commit=False)
    api.ok("POST", f"{A}/-/sessions/{s}/turns/{rolled['id']}/rollback")
    second = turn(api, s, "I prefer tea.")
    # 3 messages of committed turns since the last review (the rolled-back turn's never count).
    assert second["extraction"]["messages"] == 3
    assert (second["extraction"]["fromTurn"], second["extraction"]["through"]) == (0, 3)
    services.drain_extractions()
    summaries = sorted(r["summary"] for r in active(api))
    assert summaries == ["User lives in Lisbon", "User prefers tea", "User works as a nurse"]
    assert api.ok("GET", f"{A}/-/sessions/{s}")["reviewedThrough"] == 3
    # The next review starts after turn 3.
    third = turn(api, s, "I drive a van.")
    assert third["extraction"] is None


@pytest.mark.parametrize(
    ("memory", "begin", "why"),
    [
        ({"enabled": False}, {}, "memory is off"),
        ({"access": "read_only"}, {}, "the agent's memory is read only"),
        ({}, {"preview": True}, "a preview turn never changes live memory"),
        ({"scope": {"read": ["session"], "write": []}}, {}, "the agent writes no scope"),
    ],
)
def test_no_review_is_started_when(api, services, memory, begin, why):
    s = setup(api, **memory)
    committed = turn(api, s, "I live in Lisbon.", **begin)
    assert committed["extraction"] is None, why
    assert services.drain_extractions() == 0
    assert active(api) == []


def test_a_turn_without_messages_or_rolled_back_starts_no_review(api, services):
    s = setup(api)
    assert turn(api, s)["extraction"] is None
    assert turn(api, s, "ok", role="assistant")["extraction"]["messages"] == 1
    rolled = turn(api, s, "I live in Lisbon.", commit=False)
    ended = api.ok("POST", f"{A}/-/sessions/{s}/turns/{rolled['id']}/rollback")
    assert ended["extraction"] is None
    services.drain_extractions()
    assert active(api) == []


@pytest.mark.parametrize(
    ("write", "asked", "scope"),
    [
        (["session"], "agent", "session"),  # agent scope is written only when write has agent
        (["session", "agent"], "agent", "agent"),  # ... and the review asked for it
        (["session", "agent"], None, "session"),
        (["agent"], None, "agent"),  # an agent writing agent scope alone
    ],
)
def test_agent_scope_only_when_write_includes_agent(store, tmp_path, write, asked, scope):
    model = Scripted(
        candidates=[Candidate(summary="User lives in Lisbon", kind="fact", scope=asked)]
    )
    api, services = scripted_api(store, tmp_path, model)
    s = setup(api, scope={"read": ["session", "agent"], "write": write})
    turn(api, s, "I live in Lisbon.")
    services.drain_extractions()
    [record] = active(api)
    assert record["scope"] == scope
    assert record["sessionId"] == (s if scope == "session" else None)
    # The propose call is told to choose a scope only when both are offered.
    told = 'Choose each memory\'s "scope"' in model.instructions[0]
    assert told == (write == ["session", "agent"])


def test_the_prompt_setting_replaces_the_default_instructions(store, tmp_path):
    model = Scripted(candidates=[])
    services = build_services(Settings(data_dir=tmp_path), store=store, embedder=None, model=model)
    api = ApiClient(_handler(services))
    s = setup(api, extraction={"prompt": "Keep only release dates."})
    turn(api, s, "We ship on Tuesdays.")
    services.drain_extractions()
    [instructions] = model.instructions
    assert instructions.startswith("Keep only release dates.")
    assert "worth remembering" not in instructions


class Scripted(MemoryModel):
    """A model whose answers the test chooses; it can fail its first `failures` calls."""

    model_id = "scripted"

    def __init__(self, candidates=None, decisions=None, failures=0):
        self.candidates = candidates
        self.decisions = decisions
        self.failures = failures
        self.calls = 0
        self.instructions: list[str] = []

    def _call(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise ModelUnavailable("the model is overloaded")
        return [ModelUsage(model_id=self.model_id, input_tokens=10, output_tokens=5)]

    def propose(self, messages: list[Message], instructions, existing_kinds, labels):
        usage = self._call()
        self.instructions.append(instructions)
        if self.candidates is not None:
            return ModelResult(self.candidates, usage)
        return ModelResult(
            [
                Candidate(summary=m.text, kind="fact", sources=[m.id] if m.id else [])
                for m in messages
            ],
            usage,
        )

    def decide(self, candidates: list[Candidate], neighbours: dict[int, list[Existing]]):
        usage = self._call()
        if self.decisions is not None:
            return ModelResult(self.decisions(candidates, neighbours), usage)
        return ModelResult(
            [Decision(candidate=i, action="add") for i in range(len(candidates))], usage
        )


def _handler(services):
    from agent_memory.api.app import Api

    return drained(Api(services).handle, services)


def scripted_api(store, tmp_path, model, **settings):
    services = build_services(
        Settings(data_dir=tmp_path, extraction_backoff_seconds=0, **settings),
        store=store,
        embedder=None,
        model=model,
    )
    return ApiClient(_handler(services)), services


def test_a_review_that_keeps_failing_is_recorded_on_the_turn(store, tmp_path):
    model = Scripted(failures=100)
    api, services = scripted_api(store, tmp_path, model, extraction_attempts=3)
    s = setup(api)
    committed = turn(api, s, "I live in Lisbon.")
    assert committed["status"] == "committed"
    services.drain_extractions()
    detail = turn_detail(api, s, committed["id"])
    # The turn stays committed; its review says what went wrong, after three attempts.
    assert detail["status"] == "committed"
    review = detail["extraction"]
    assert (review["status"], review["attempts"]) == ("failed", 3)
    assert "overloaded" in review["error"]
    assert active(api) == []
    assert api.ok("GET", f"{A}/-/sessions/{s}")["reviewedThrough"] == 0

    # The next review reads the failed one's messages again, and then succeeds.
    model.failures = 0
    nxt = turn(api, s, "I prefer tea.")
    assert nxt["extraction"]["fromTurn"] == 0
    services.drain_extractions()
    assert sorted(r["summary"] for r in active(api)) == ["I live in Lisbon.", "I prefer tea."]


def test_a_retried_review_succeeds_and_applies_once(store, tmp_path):
    model = Scripted(failures=1)
    api, services = scripted_api(store, tmp_path, model)
    s = setup(api)
    committed = turn(api, s, "I live in Lisbon.")
    services.drain_extractions()
    review = turn_detail(api, s, committed["id"])["extraction"]
    assert (review["status"], review["attempts"], review["added"]) == ("done", 2, 1)

    # Running it again (a duplicate start, a redelivered task) applies nothing.
    job = ExtractionJob("acme", "teams/web/releases", s, committed["id"])
    assert services.extraction.run(job).added == 1
    proposal = services.extraction.propose(job)
    decision = services.extraction.decide(job, proposal)
    again = services.extraction.apply(job, proposal, decision)
    assert again.model_dump(mode="json", by_alias=True)["endedAt"] == review["endedAt"]
    assert len(active(api)) == 1


def test_decisions_naming_unknown_records_kinds_or_labels_are_dropped(store, tmp_path):
    def decisions(candidates, neighbours):
        return [
            Decision(candidate=0, action="replace", target="rec_not_shown", reason="x"),
            Decision(candidate=1, action="add", reason="unknown kind"),
            Decision(candidate=2, action="add", reason="unknown label"),
            Decision(candidate=3, action="delete", target=None, reason="names nothing"),
            Decision(candidate=9, action="add", reason="no such candidate"),
            Decision(candidate=4, action="add", reason="fine"),
        ]

    candidates = [
        Candidate(summary="one", kind="fact"),
        Candidate(summary="two", kind="gossip"),
        Candidate(summary="three", kind="fact", labels={"customer_id": "c-1"}),
        Candidate(summary="four", kind="fact"),
        Candidate(summary="five", kind="fact"),
    ]
    model = Scripted(candidates=candidates, decisions=decisions)
    api, services = scripted_api(store, tmp_path, model)
    s = setup(api)
    committed = turn(api, s, "whatever was said")
    services.drain_extractions()
    review = turn_detail(api, s, committed["id"])["extraction"]
    assert review["added"] == 1
    assert review["dropped"] == [
        "candidate 0: unknown record rec_not_shown",
        "candidate 1: unknown kind gossip",
        "candidate 2: unknown label customer_id",
        "candidate 3: delete names no record",
        "candidate 9: unknown candidate 9",
    ]
    assert [r["summary"] for r in active(api)] == ["five"]


def test_a_review_publishes_memory_events_naming_its_turn(api, services):
    s = setup(api)
    agent_stream = services.events.subscribe("acme", "teams/web/releases", None)
    committed = turn(api, s, "I live in Lisbon.")
    assert agent_stream.queue.empty()
    services.drain_extractions()
    _, event = agent_stream.queue.get_nowait()
    assert (event.type, event.turn_id) == ("agent.memory_updated", committed["id"])
    assert event.effect_id == f"eff_extraction_{committed['id']}"
    assert [c.operation for c in event.changes] == ["create"]


def test_default_model_is_rule_based_offline(services):
    assert isinstance(services.extraction.model, RuleBasedModel)


def test_a_proposal_stays_inside_a_state_machine_payload(store, tmp_path):
    # 20 candidates of 8,000 characters would pass Step Functions' 256 KB between steps.
    big = [Candidate(summary=f"fact {i}", content="x" * 8_000, kind="fact") for i in range(25)]
    api, services = scripted_api(store, tmp_path, Scripted(candidates=big))
    s = setup(api)
    committed = turn(api, s, "whatever was said")
    job = ExtractionJob("acme", "teams/web/releases", s, committed["id"])
    services.extraction.begin(job)
    proposal = services.extraction.propose(job)
    assert 0 < len(proposal.candidates) < 20
    assert len(proposal.model_dump_json()) <= 100_000  # as the state machine carries it
    decision = services.extraction.decide(job, proposal)
    done = services.extraction.apply(job, proposal, decision)
    assert done.added == len(proposal.candidates)


def open_turn(api, session, *texts):
    """A begun turn with its messages appended, not committed; returns its path."""
    t = api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)
    path = f"{A}/-/sessions/{session}/turns/{t['id']}"
    api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": x} for x in texts]})
    return path


def test_a_turn_that_commits_after_a_later_turns_review_is_still_reviewed(api, services):
    s = setup(api)
    first = open_turn(api, s, "I live in Lisbon.")
    second = open_turn(api, s, "I prefer tea.")
    api.ok("POST", f"{second}/commit")
    services.drain_extractions()  # turn 2's review: turn 1 was open, so not read
    assert api.ok("GET", f"{A}/-/sessions/{s}")["reviewedThrough"] == 2
    late = api.ok("POST", f"{first}/commit")
    assert (late["extraction"]["fromTurn"], late["extraction"]["through"]) == (0, 1)
    services.drain_extractions()
    assert sorted(r["summary"] for r in active(api)) == ["User lives in Lisbon", "User prefers tea"]
    assert api.ok("GET", first)["reviewed"] and api.ok("GET", second)["reviewed"]


def test_overlapping_reviews_read_each_message_once(api, services):
    # The cloud runs reviews concurrently: two that read the same unread turn.
    s = setup(api, extraction={"every": {"messages": 1}})
    first = turn(api, s, "I live in Lisbon.")
    second = turn(api, s, "I prefer tea.")
    extraction = services.extraction
    job1 = ExtractionJob("acme", "teams/web/releases", s, first["id"])
    job2 = ExtractionJob("acme", "teams/web/releases", s, second["id"])
    extraction.begin(job1)
    extraction.begin(job2)
    proposal1 = extraction.propose(job1)
    proposal2 = extraction.propose(job2)  # reads turns 1 and 2
    assert len(proposal2.read) == 2
    extraction.apply(job2, proposal2, extraction.decide(job2, proposal2))
    # The first review read turn 1 too, but the second finished first: nothing applied ...
    from agent_memory.domain.extraction.service import ReviewWindowMoved

    with pytest.raises(ReviewWindowMoved):
        extraction.apply(job1, proposal1, extraction.decide(job1, proposal1))
    # ... and run again it finds nothing left to read.
    again = extraction.run(job1)
    assert (again.status.value, again.messages, again.added) == ("done", 0, 0)
    assert sorted(r["summary"] for r in active(api)) == ["User lives in Lisbon", "User prefers tea"]


def test_a_window_larger_than_a_review_is_read_over_several(api, services, monkeypatch):
    from agent_memory.domain.extraction import service as module

    monkeypatch.setattr(module, "WINDOW_MESSAGES", 2)
    s = setup(api, extraction={"every": {"messages": 3}})
    turn(api, s, "I live in Lisbon.", "I work as a nurse.")  # 2 of 3: not due
    third = turn(api, s, "I prefer tea.", "I drive a van.")  # due: 4 messages in 2 turns
    services.drain_extractions()
    review = api.ok("GET", f"{A}/-/sessions/{s}/turns/{third['id']}")["extraction"]
    # Only the first turn fits: the review covers through turn 1, the rest waits.
    assert (review["messages"], review["through"]) == (2, 1)
    assert api.ok("GET", f"{A}/-/sessions/{s}")["reviewedThrough"] == 1
    nxt = turn(api, s, "I own a boat.")  # 3 unread messages since the mark: due
    assert nxt["extraction"]["messages"] == 3
    services.drain_extractions()
    drained = api.ok("GET", f"{A}/-/sessions/{s}/turns/{nxt['id']}")["extraction"]
    assert drained["through"] == 2  # turn 2 fills its window; turn 3 waits again
    summaries = sorted(r["summary"] for r in active(api))
    assert summaries == [
        "User drives a van",
        "User lives in Lisbon",
        "User prefers tea",
        "User works as a nurse",
    ]


def test_a_review_that_cannot_start_never_fails_its_commit(api, services, monkeypatch):
    def refuse(job):
        raise RuntimeError("the queue refused the job")

    monkeypatch.setattr(services.starter, "start", refuse)
    s = setup(api)
    committed = turn(api, s, "I live in Lisbon.")
    assert committed["status"] == "committed"
    review = api.ok("GET", f"{A}/-/sessions/{s}/turns/{committed['id']}")["extraction"]
    assert review["status"] == "failed"
    assert review["error"] == "could not start: the queue refused the job"


def test_a_commit_whose_review_cannot_be_planned_still_commits_and_queues_it(
    api, services, monkeypatch
):
    def broken(turn):
        raise RuntimeError("history unreadable")

    monkeypatch.setattr(services.extraction, "plan", broken)
    s = setup(api)
    committed = turn(api, s, "I live in Lisbon.")
    assert committed["status"] == "committed"
    assert committed["extraction"]["status"] == "queued"
    services.drain_extractions()
    assert [r["summary"] for r in active(api)] == ["User lives in Lisbon"]


def test_a_failed_review_can_be_run_again(store, tmp_path):
    model = Scripted(failures=100)
    api, services = scripted_api(store, tmp_path, model, extraction_attempts=1)
    s = setup(api)
    committed = turn(api, s, "I live in Lisbon.")
    path = f"{A}/-/sessions/{s}/turns/{committed['id']}"
    # Only a failed review runs again: a queued one is refused and nothing changes.
    status, body = api.call("POST", f"{path}/extraction")
    assert (status, body["error"]["code"]) == (409, "extraction_not_failed")
    services.drain_extractions()
    assert api.ok("GET", path)["extraction"]["status"] == "failed"

    model.failures = 0
    rerun = api.ok("POST", f"{path}/extraction")
    assert (rerun["extraction"]["status"], rerun["extraction"]["runs"]) == ("queued", 1)
    assert rerun["extraction"]["error"] is None
    services.drain_extractions()
    review = api.ok("GET", path)["extraction"]
    assert (review["status"], review["added"], review["runs"]) == ("done", 1, 1)
    status, body = api.call("POST", f"{path}/extraction")
    assert (status, body["error"]["code"]) == (409, "extraction_not_failed")
    assert len(active(api)) == 1


def test_running_again_needs_a_turn_with_a_review(api):
    s = setup(api, enabled=False)
    plain = turn(api, s, "I live in Lisbon.")
    status, body = api.call("POST", f"{A}/-/sessions/{s}/turns/{plain['id']}/extraction")
    assert (status, body["error"]["code"]) == (409, "no_extraction")
    status, body = api.call("POST", f"{A}/-/sessions/{s}/turns/trn_nope/extraction")
    assert (status, body["error"]["code"]) == (404, "turn_not_found")


def test_each_run_of_a_review_is_its_own_execution_name():
    first = ExtractionJob("acme", "teams/web", "ses_1", "trn_" + "x" * 120)
    again = ExtractionJob("acme", "teams/web", "ses_1", "trn_" + "x" * 120, run=2)
    assert first.name != again.name and again.name.endswith("-r2")
    assert len(again.name) <= 80 and len(first.name) <= 80
    assert ExtractionJob.from_dict(again.to_dict()) == again


def test_a_namesake_turns_review_is_another_run_and_leaves_the_new_turn_alone(api, services):
    # Ids a caller chose come back when an agent is deleted and made again: the old turn's
    # review is another execution than the new one's, and finds no turn of its own.
    s = setup(api)
    committed = turn(api, s, "I live in Lisbon.")
    stored = services.store.get_turn("acme", "teams/web/releases", s, committed["id"])
    job = ExtractionJob.of(stored)
    namesake = dataclasses.replace(job, born="2020-01-01T00:00:00+00:00")
    assert namesake.name != job.name
    assert ExtractionJob.from_dict(namesake.to_dict()) == namesake
    before = api.ok("GET", f"{A}/-/sessions/{s}/turns/{committed['id']}")["extraction"]
    assert services.extraction.begin(namesake) is True
    assert services.extraction.fail(namesake, "boom") is None
    after = api.ok("GET", f"{A}/-/sessions/{s}/turns/{committed['id']}")["extraction"]
    assert after == before


def test_neighbours_include_the_newest_records_a_lagging_index_may_not_hold(
    store, tmp_path, monkeypatch
):
    model = Scripted(candidates=[Candidate(summary="User lives in Lisbon", kind="fact")])
    api, services = scripted_api(store, tmp_path, model)
    s = setup(api)
    turn(api, s, "I live in Lisbon.")
    services.drain_extractions()
    [kept] = active(api)
    # As if the search index had not caught up with the record yet.
    monkeypatch.setattr(services.records, "ranked", lambda ctx, text, query, limit: [])
    seen = {}

    def decide(candidates, neighbours):
        seen.update(neighbours)
        return [Decision(candidate=0, action="skip", target=kept["id"], reason="restated")]

    model.decisions = decide
    turn(api, s, "I live in Lisbon.")
    services.drain_extractions()
    assert [e.id for e in seen[0]] == [kept["id"]]
    assert len(active(api)) == 1


def test_a_decision_to_delete_a_record_shown_wrong_deletes_it(store, tmp_path):
    model = Scripted(candidates=[Candidate(summary="User lives in Lisbon", kind="fact")])
    api, services = scripted_api(store, tmp_path, model)
    s = setup(api)
    turn(api, s, "I live in Lisbon.")
    services.drain_extractions()
    [wrong] = active(api)

    def decide(candidates, neighbours):
        [shown] = [e.id for e in neighbours[0]]
        return [Decision(candidate=0, action="delete", target=shown, reason="shown wrong")]

    model.candidates = [Candidate(summary="User never lived in Lisbon", kind="fact")]
    model.decisions = decide
    later = turn(api, s, "I never lived in Lisbon, that was my sister.")
    services.drain_extractions()
    review = api.ok("GET", f"{A}/-/sessions/{s}/turns/{later['id']}")["extraction"]
    assert (review["deleted"], review["added"]) == (1, 0)
    assert active(api) == []
    deleted = api.ok("GET", f"{A}/-/records/{wrong['id']}")
    assert deleted["status"] == "DELETED"
    versions = api.ok("GET", f"{A}/-/records/{wrong['id']}/versions")["versions"]
    assert versions[0]["operation"] == "delete"
    assert versions[0]["changedBy"]["turnId"] == later["id"]


def test_a_review_whose_writes_one_transaction_cannot_hold_applies_what_fits(store, tmp_path):
    # Twelve deletes of records of 34,000 kana (each written again, head and version, about
    # 200 KB as JSON): past the 4 MB of one DynamoDB transaction, the review failed on every
    # try and its turns stayed unread. What fits is applied, the rest said in `dropped`.
    def delete_each(candidates, neighbours):
        used, out = set(), []
        for i, group in neighbours.items():
            target = next(e.id for e in group if e.id not in used)
            used.add(target)
            out.append(Decision(candidate=i, action="delete", target=target, reason="wrong"))
        return out

    model = Scripted(
        candidates=[Candidate(summary=f"fact number {k}", kind="fact") for k in range(12)],
        decisions=delete_each,
    )
    api, services = scripted_api(store, tmp_path, model)
    s = setup(api, tools=["add_memory"], extraction={"every": {"messages": 1000}})
    for k in range(12):
        t = api.ok("POST", f"{A}/-/sessions/{s}/turns", {}, expect=201)["id"]
        body = {"summary": f"fact number {k}", "content": "あ" * 34_000, "scope": "agent"}
        api.ok("POST", f"{A}/-/sessions/{s}/turns/{t}/tools/add_memory", {**body, "caller": AGENT})
        api.ok("POST", f"{A}/-/sessions/{s}/turns/{t}/commit")
    api.ok("PUT", A, manifest(tools=["add_memory"]))  # every turn reviewed again
    committed = turn(api, s, "all of those facts are wrong")
    services.drain_extractions()
    review = turn_detail(api, s, committed["id"])["extraction"]
    assert review["status"] == "done", review
    assert 0 < review["deleted"] < 12
    assert len(review["dropped"]) == 12 - review["deleted"]
    assert all("one transaction" in d for d in review["dropped"])
    assert len(active(api)) == 12 - review["deleted"]
