"""Consolidation of an agent's record memory through the API, on both stores: twins merged,
contradictions resolved to the newer fact, stale events expired, pins kept within budget, a dry
run that changes nothing, each run kept and announced; and a run racing live turns loses none
of their writes."""

from datetime import UTC, datetime, timedelta

import pytest
from test_api_records import A, Turn, manifest, session, stored

from agent_memory.domain.kernel.records import RecordOperation
from agent_memory.domain.records.models import Provenance, Record, RecordVersion, RecordWrite

pytestmark = pytest.mark.integration

AGENT_ID = "teams/web/releases"
CONSOLIDATE = f"{A}/-/consolidate"


@pytest.fixture
def agent(api):
    api.ok("PUT", A, manifest(expire_after={"event": "P30D"}), expect=201)
    return api


def committed(api, *summaries, **args):
    """One turn writing each summary as an agent-scope record, in order."""
    turn = Turn(api, session(api))
    made = [turn.add(s, scope="agent", **args) for s in summaries]
    turn.commit()
    return made


def head(api, record):
    return api.ok("GET", f"{A}/-/records/{record['id']}")


def planted(services, summary, kind, age, sources=()):
    """A record written `age` ago (as if kept that long), straight into the store, citing
    `sources` as a review's record would."""
    then = datetime.now(UTC) - age
    record = Record(
        tenant="acme",
        agent_id=AGENT_ID,
        id=f"rec_{int(then.timestamp() * 1000):013d}{'0' * 13}",
        scope="agent",
        summary=summary,
        kind=kind,
        provenance=Provenance(actor="api:test", sources=list(sources)),
        created_at=then,
        updated_at=then,
    )
    search = services.records.search
    version = RecordVersion(
        record=record, operation=RecordOperation.CREATE, changed_by=record.provenance, at=then
    )
    write = RecordWrite(
        record=record,
        expected_version=None,
        versions=[version],
        index=search.doc_without_vector(record) if search.inline else None,
    )
    services.store.write_records("acme", AGENT_ID, [write])
    return record


def test_twins_are_merged_into_the_most_complete_and_the_run_is_kept_and_announced(agent, services):
    # Given restatements of one fact (words, and meaning), and a fact of its own
    short, full = committed(agent, "Melanie paints", "Melanie paints landscapes at the lake")
    same, again = committed(
        agent, "Jon won't quit, no matter what", "Jon won't quit, no matter what"
    )
    (other,) = committed(agent, "Releases ship on Tuesdays")
    events = services.events.subscribe("acme", AGENT_ID, None)

    # When the agent's memory is consolidated
    run = agent.ok("POST", CONSOLIDATE)

    # Then each twin is SUPERSEDED by the one kept, the most complete (or the newest)
    assert run["status"] == "DONE" and run["dryRun"] is False
    assert run["counts"] == {
        "merged": 2,
        "superseded": 0,
        "expired": 0,
        "unpinned": 0,
        "kept": 3,
        "skipped": 0,
    }
    merged = {a["recordId"]: a["keptId"] for a in run["actions"] if a["action"] == "merge"}
    assert merged == {short["id"]: full["id"], same["id"]: again["id"]}
    gone = head(agent, short)
    assert (gone["status"], gone["replacedBy"], gone["version"]) == ("SUPERSEDED", full["id"], 2)
    versions = agent.ok("GET", f"{A}/-/records/{short['id']}/versions")["versions"]
    assert versions[0]["operation"] == "supersede"
    assert versions[0]["changedBy"]["actor"].startswith("api:")
    assert versions[0]["changedBy"]["triggerRunId"] == run["id"]
    assert {r["id"] for r in stored(agent)} == {full["id"], again["id"], other["id"]}
    # The rule-based plan asks no model: no usage of purpose memory
    assert all(u["purpose"] != "memory" for u in run["usage"])
    # Kept, newest first, and announced as one agent.memory_updated
    kept = agent.ok("GET", f"{A}/-/consolidations")["consolidations"]
    assert [(k["id"], k["status"], k["counts"]["merged"]) for k in kept] == [(run["id"], "DONE", 2)]
    assert kept[0]["startedAt"] <= kept[0]["finishedAt"]
    _, event = events.queue.get_nowait()
    assert event.type == "agent.memory_updated"
    assert {(c.id, c.operation) for c in event.changes} == {
        (short["id"], "supersede"),
        (same["id"], "supersede"),
    }
    # A second run finds nothing left to do
    second = agent.ok("POST", CONSOLIDATE)
    assert second["actions"] == [] and second["counts"]["kept"] == 3


def test_the_record_kept_by_a_merge_cites_what_its_twin_cited(agent, services):
    # Given one fact a review kept from two conversations, as two records citing each
    full = planted(services, "Melanie paints landscapes at the lake", "fact", timedelta(days=2),
                   sources=["D1:3"])  # fmt: skip
    short = planted(services, "Melanie paints", "fact", timedelta(days=1), sources=["D7:2", "D1:3"])

    # When the agent's memory is consolidated
    run = agent.ok("POST", CONSOLIDATE)

    # Then the twin is merged into the most complete, which now cites both conversations
    assert [(a["action"], a["recordId"]) for a in run["actions"]] == [("merge", short.id)]
    kept = head(agent, {"id": full.id})
    assert (kept["status"], kept["version"], kept["summary"]) == ("ACTIVE", 2, full.summary)
    assert kept["provenance"]["sources"] == ["D1:3", "D7:2"]
    versions = agent.ok("GET", f"{A}/-/records/{full.id}/versions")["versions"]
    assert [v["operation"] for v in versions] == ["restate", "create"]
    assert versions[0]["changedBy"]["triggerRunId"] == run["id"]
    assert head(agent, {"id": short.id})["replacedBy"] == full.id


def test_a_contradiction_keeps_the_newer_fact(agent):
    (old,) = committed(agent, "Alice lives in Paris")
    (new,) = committed(agent, "Alice lives in Rome")
    (sister,) = committed(agent, "Alice's sister is Bea")
    (another,) = committed(agent, "Alice's sister is Cleo")

    run = agent.ok("POST", CONSOLIDATE)

    assert [(a["action"], a["recordId"], a["keptId"]) for a in run["actions"]] == [
        ("supersede", old["id"], new["id"])
    ]
    assert "alice's home" in run["actions"][0]["reason"]
    assert (head(agent, old)["status"], head(agent, old)["replacedBy"]) == ("SUPERSEDED", new["id"])
    # A sister is one of several: both kept
    assert {r["id"] for r in stored(agent)} == {new["id"], sister["id"], another["id"]}


def test_stale_events_expire_through_the_expiry_path(agent, services):
    # Given an event older than its 30-day lifetime, a recent one, and an old fact
    old = planted(services, "The launch happened on Monday", "event", timedelta(days=31))
    recent = planted(services, "The demo happened on Friday", "event", timedelta(days=2))
    fact = planted(services, "Releases ship on Tuesdays", "fact", timedelta(days=90))

    run = agent.ok("POST", CONSOLIDATE)

    assert [(a["action"], a["recordId"]) for a in run["actions"]] == [("expire", old.id)]
    gone = agent.ok("GET", f"{A}/-/records/{old.id}")
    assert gone["status"] == "EXPIRED" and gone["expiresAt"] is not None
    versions = agent.ok("GET", f"{A}/-/records/{old.id}/versions")["versions"]
    assert versions[0]["operation"] == "set_expiry"
    assert {r["id"] for r in stored(agent)} == {recent.id, fact.id}
    # An explicit stale_after shorter than the lifetime takes the recent one too
    agent.ok(
        "PUT", A, manifest(expire_after={"event": "P30D"}, consolidation={"stale_after": "P1D"})
    )
    run = agent.ok("POST", CONSOLIDATE)
    assert [(a["action"], a["recordId"]) for a in run["actions"]] == [("expire", recent.id)]


def test_pins_beyond_the_budget_are_unpinned_oldest_first(agent):
    # Given three pins (17, 15 and 17 tokens) within a budget of 60, then one lowered to 35
    first, second = committed(
        agent, "Deploy freeze starts Friday", "Standup is at 10:00", pinned=True
    )
    (third,) = committed(agent, "The release manager is Dana", pinned=True)
    agent.ok("PUT", A, manifest(expire_after={"event": "P30D"}, pinned={"max_tokens": 35}))

    run = agent.ok("POST", CONSOLIDATE)

    unpinned = [a["recordId"] for a in run["actions"] if a["action"] == "unpin"]
    # The newest two fit (32 tokens); the oldest does not
    assert unpinned == [first["id"]]
    assert head(agent, third)["pinned"] is True and head(agent, second)["pinned"] is True
    changed = head(agent, first)
    assert (changed["pinned"], changed["status"], changed["version"]) == (False, "ACTIVE", 2)
    versions = agent.ok("GET", f"{A}/-/records/{first['id']}/versions")["versions"]
    assert versions[0]["operation"] == "unpin"
    assert run["counts"]["unpinned"] == len(unpinned) and run["counts"]["kept"] == 3


def test_a_dry_run_returns_the_plan_and_changes_nothing(agent):
    short, full = committed(agent, "Melanie paints", "Melanie paints landscapes at the lake")

    plan = agent.ok("POST", CONSOLIDATE, dryRun="true")

    assert plan["dryRun"] is True and plan["counts"]["merged"] == 1
    assert [(a["action"], a["recordId"], a["keptId"]) for a in plan["actions"]] == [
        ("merge", short["id"], full["id"])
    ]
    assert head(agent, short)["status"] == "ACTIVE" and head(agent, short)["version"] == 1
    assert agent.ok("GET", f"{A}/-/consolidations")["consolidations"] == []


def test_session_records_are_consolidated_within_their_own_session_only(agent):
    s1, s2 = session(agent), session(agent)
    mine = []
    for s in (s1, s1, s2):
        turn = Turn(agent, s)
        mine.append(turn.add("Account 42 prefers email"))
        turn.commit()
    (shared,) = committed(agent, "Account 42 prefers email")

    run = agent.ok("POST", CONSOLIDATE)

    # The two of s1 are one; s2's and the agent-scope one stand: each is seen elsewhere
    assert [(a["action"], a["recordId"], a["keptId"]) for a in run["actions"]] == [
        ("merge", mine[0]["id"], mine[1]["id"])
    ]
    assert {r["id"] for r in stored(agent)} == {mine[1]["id"], mine[2]["id"], shared["id"]}


@pytest.mark.parametrize(
    ("path", "query", "status", "code"),
    [
        ("/v1/agents/teams/nobody/-/consolidate", {}, 404, "agent_not_found"),
        (CONSOLIDATE, {"dryRun": "maybe"}, 400, None),
    ],
)
def test_a_bad_call_changes_nothing(agent, path, query, status, code):
    (record,) = committed(agent, "Melanie paints")
    got, body = agent.call("POST", path, **query)
    assert got == status, body
    if code:
        assert body["error"]["code"] == code
    assert head(agent, record)["version"] == 1
    assert agent.ok("GET", f"{A}/-/consolidations")["consolidations"] == []


def test_a_read_only_token_cannot_consolidate(agent):
    reader = agent.as_tenant("acme", scope="agents:read")
    status, body = reader.call("POST", CONSOLIDATE)
    assert status == 403, body
    assert agent.ok("GET", f"{A}/-/consolidations")["consolidations"] == []


@pytest.mark.parametrize(
    "consolidation",
    [{"every": "PT30M"}, {"every": "daily"}, {"every": "P1M"}, {"stale_after": "P0D"}, {"at": "x"}],
)
def test_a_bad_consolidation_setting_is_refused(agent, consolidation):
    status, body = agent.call("PUT", A, manifest(consolidation=consolidation))
    assert (status, body["error"]["code"]) == (400, "invalid_request"), body
    assert "consolidation" in body["error"]["message"]
    assert agent.ok("GET", A)["manifestVersion"] == 1
    saved = agent.ok("PUT", A, manifest(consolidation={"every": "P1D"}))
    assert saved["manifest"]["harness"]["memory"]["consolidation"]["every"] == "P1D"
