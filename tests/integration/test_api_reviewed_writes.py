"""Reviewed writes (harness.memory.extraction.approval "review"), through the API on SQLite and
on DynamoDB (moto): a review's adds, replaces and deletes wait as PENDING records with their
evidence, and only an app's approval applies them, against the memory as it is then.

The embedded worker is not running here; `services.drain_extractions()` runs the queued
reviews in the test's thread."""

from __future__ import annotations

import pytest

from agent_memory.domain.kernel.models import utcnow
from agent_memory.domain.records.models import (
    ProposedWrite,
    RecordOperation,
    RecordStatus,
    RecordVersion,
    RecordWrite,
)

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
AGENT = {"role": "agent"}


def manifest(approval: str = "review") -> dict:
    return {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
                "extraction": {"approval": approval},
            }
        }
    }


def setup(api, approval: str = "review") -> str:
    api.ok("PUT", A, manifest(approval), expect=201)
    return api.ok("POST", f"{A}/-/sessions", expect=201)["id"]


def reviewed(api, services, session: str, *texts: str) -> dict:
    """Commit a turn saying `texts`, run its review, and return the turn as it then stands."""
    t = api.ok("POST", f"{A}/-/sessions/{session}/turns", {}, expect=201)
    path = f"{A}/-/sessions/{session}/turns/{t['id']}"
    api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": x} for x in texts]})
    api.ok("POST", f"{path}/commit")
    services.drain_extractions()
    return api.ok("GET", path)


def listed(api, status: str = "ACTIVE") -> list[dict]:
    return api.ok("GET", f"{A}/-/records", status=status)["records"]


def decide(api, record_id: str, verb: str, expect: int = 200) -> dict:
    return api.ok("POST", f"{A}/-/records/{record_id}/{verb}", expect=expect)


def test_a_reviews_writes_wait_as_pending_records_with_their_evidence(api, services):
    # Given an agent whose writes await approval
    s = setup(api)
    # When a turn is reviewed
    t = reviewed(api, services, s, "I live in Lisbon. I prefer tea over coffee.")
    # Then the review proposed its two facts and applied nothing
    review = t["extraction"]
    assert (review["status"], review["proposed"], review["added"]) == ("done", 2, 0)
    assert listed(api) == []
    pending = listed(api, "PENDING")
    assert sorted(r["summary"] for r in pending) == [
        "User lives in Lisbon",
        "User prefers tea over coffee",
    ]
    message = api.ok("GET", f"{A}/-/sessions/{s}/history")["events"][0]["id"]
    for record in pending:
        # each keeps what it proposes and the review's evidence: the turn, its execution, the
        # message it came from
        assert record["proposal"] == {"action": "add", "target": None, "targetVersion": None}
        assert record["provenance"]["turnId"] == t["id"]
        assert record["provenance"]["execution"] == f"extraction:{t['id']}"
        assert record["provenance"]["sources"] == [message]
    # and no turn recalls, searches or reads them
    later = api.ok("POST", f"{A}/-/sessions/{s}/turns", {}, expect=201)
    path = f"{A}/-/sessions/{s}/turns/{later['id']}"
    recalled = api.ok("POST", f"{path}/recall", {"context": "where does the user live"})
    assert recalled["records"] == []
    found = api.ok("GET", f"{A}/-/search", query="Lisbon", types="records")
    assert found["hits"] == []
    lisbon = next(r for r in pending if "Lisbon" in r["summary"])
    assert api.ok("GET", f"{A}/-/records", query="Lisbon")["records"] == []
    assert api.ok("GET", f"{A}/-/records/{lisbon['id']}")["status"] == "PENDING"


def test_approving_an_add_makes_it_a_memory_with_the_approver_in_its_versions(api, services):
    # Given a pending fact
    s = setup(api)
    reviewed(api, services, s, "I live in Lisbon.")
    [proposal] = listed(api, "PENDING")
    on_agent = services.events.subscribe("acme", "teams/web/releases", None)
    # When an app approves it
    approved = decide(api, proposal["id"], "approve")
    # Then it is an active memory a turn recalls, at a new version naming the approver
    assert (approved["status"], approved["version"]) == ("ACTIVE", 2)
    assert [r["id"] for r in listed(api)] == [proposal["id"]]
    assert listed(api, "PENDING") == []
    later = api.ok("POST", f"{A}/-/sessions/{s}/turns", {}, expect=201)
    recalled = api.ok(
        "POST", f"{A}/-/sessions/{s}/turns/{later['id']}/recall", {"context": "where do I live"}
    )
    assert [r["id"] for r in recalled["records"]] == [proposal["id"]]
    versions = api.ok("GET", f"{A}/-/records/{proposal['id']}/versions")["versions"]
    assert [(v["operation"], v["changedBy"]["actor"]) for v in versions] == [
        ("approve", "api:u1"),
        ("create", "agent:teams/web/releases@1"),
    ]
    # announced like every other change of memory
    [event] = [on_agent.queue.get_nowait()[1] for _ in range(on_agent.queue.qsize())]
    assert event.type == "agent.memory_updated"
    assert [(c.id, c.operation, c.version) for c in event.changes] == [
        (proposal["id"], "approve", 2)
    ]
    # and in the audit trail
    [entry] = [e for e in api.ok("GET", "/v1/audit")["entries"] if e["target"].endswith("/approve")]
    assert (entry["actor"], entry["method"], entry["status"]) == ("api:u1", "POST", 200)
    # When it is approved or rejected again, Then 409 and nothing changes
    again = decide(api, proposal["id"], "approve", expect=409)
    assert again["error"]["code"] == "record_not_pending"
    assert decide(api, proposal["id"], "reject", expect=409)["error"]["code"] == (
        "record_not_pending"
    )
    assert api.ok("GET", f"{A}/-/records/{proposal['id']}")["version"] == 2


def test_rejecting_keeps_the_proposal_rejected_and_applies_nothing(api, services):
    s = setup(api)
    reviewed(api, services, s, "I live in Lisbon.")
    [proposal] = listed(api, "PENDING")
    # When an app rejects it
    rejected = decide(api, proposal["id"], "reject")
    # Then it is REJECTED, at a new version naming who rejected it, and no memory
    assert (rejected["status"], rejected["version"]) == ("REJECTED", 2)
    assert listed(api) == [] and listed(api, "PENDING") == []
    assert [r["id"] for r in listed(api, "REJECTED")] == [proposal["id"]]
    versions = api.ok("GET", f"{A}/-/records/{proposal['id']}/versions")["versions"]
    assert (versions[0]["operation"], versions[0]["changedBy"]["actor"]) == ("reject", "api:u1")
    assert decide(api, proposal["id"], "approve", expect=409)["error"]["code"] == (
        "record_not_pending"
    )


def _lisbon_then_a_proposed_correction(api, services) -> tuple[str, dict, dict]:
    """An agent that learnt "User lives in Lisbon" while its writes applied at once, then
    put its writes under review and heard the user moved."""
    s = setup(api, approval="auto")
    reviewed(api, services, s, "I live in Lisbon.")
    [lisbon] = listed(api)
    api.ok("PUT", A, manifest("review"))
    reviewed(api, services, s, "Actually, I live in Porto now.")
    [correction] = listed(api, "PENDING")
    return s, lisbon, correction


def test_an_approved_correction_supersedes_what_it_replaces(api, services):
    # Given a pending correction of an active memory
    _, lisbon, correction = _lisbon_then_a_proposed_correction(api, services)
    assert correction["proposal"] == {
        "action": "replace",
        "target": lisbon["id"],
        "targetVersion": lisbon["version"],
    }
    assert [r["id"] for r in listed(api)] == [lisbon["id"]]  # still what the agent knows
    # When an app approves it
    approved = decide(api, correction["id"], "approve")
    # Then it replaces the memory as the review would have
    assert (approved["status"], approved["replaces"]) == ("ACTIVE", lisbon["id"])
    old = api.ok("GET", f"{A}/-/records/{lisbon['id']}")
    assert (old["status"], old["replacedBy"], old["version"]) == (
        "SUPERSEDED",
        correction["id"],
        lisbon["version"] + 1,
    )
    versions = api.ok("GET", f"{A}/-/records/{lisbon['id']}/versions")["versions"]
    assert (versions[0]["operation"], versions[0]["changedBy"]["actor"]) == (
        "supersede",
        "api:u1",
    )
    assert [r["id"] for r in listed(api)] == [correction["id"]]


def test_an_approved_delete_ends_its_target_and_itself(api, services):
    # Given an active memory and a review's pending proposal to delete it (written as the
    # review writes one: its evidence, the target and the target's version)
    _, lisbon, _ = _lisbon_then_a_proposed_correction(api, services)
    head = services.records.get("acme", "teams/web/releases", lisbon["id"])
    now = utcnow()
    proposal = head.model_copy(
        update={
            "id": "rec_zzdelete",
            "summary": "User no longer lives in Lisbon",
            "status": RecordStatus.PENDING,
            "proposal": ProposedWrite(action="delete", target=head.id, target_version=1),
            "created_at": now,
            "updated_at": now,
        }
    )
    created = RecordVersion(
        record=proposal, operation=RecordOperation.CREATE, changed_by=head.provenance, at=now
    )
    write = RecordWrite(record=proposal, expected_version=None, versions=[created])
    services.store.write_records("acme", "teams/web/releases", [write])
    # When an app approves it
    approved = decide(api, proposal.id, "approve")
    # Then the target is deleted, and the proposal, never a memory itself, ends with it
    assert (approved["status"], approved["version"]) == ("DELETED", 2)
    old = api.ok("GET", f"{A}/-/records/{lisbon['id']}")
    assert (old["status"], old["version"], old["pinned"]) == ("DELETED", 2, False)
    versions = api.ok("GET", f"{A}/-/records/{lisbon['id']}/versions")["versions"]
    assert (versions[0]["operation"], versions[0]["changedBy"]["actor"]) == ("delete", "api:u1")
    assert listed(api) == []


def test_a_proposal_whose_target_changed_since_is_stale_and_stays_pending(api, services):
    # Given a pending correction, and its target deleted by an app meanwhile
    _, lisbon, correction = _lisbon_then_a_proposed_correction(api, services)
    api.ok("DELETE", f"{A}/-/records/{lisbon['id']}")
    # When an app approves the correction
    refused = decide(api, correction["id"], "approve", expect=409)
    # Then it is refused as stale and nothing changes: it waits to be rejected
    assert refused["error"]["code"] == "proposal_stale"
    assert refused["error"]["target"] == lisbon["id"]
    assert api.ok("GET", f"{A}/-/records/{correction['id']}")["status"] == "PENDING"
    assert api.ok("GET", f"{A}/-/records/{lisbon['id']}")["status"] == "DELETED"
    assert decide(api, correction["id"], "reject")["status"] == "REJECTED"


def test_a_proposal_restating_an_active_memory_is_refused(api, services):
    # Given the same fact proposed twice (a pending fact is no memory a review compares with)
    s = setup(api)
    reviewed(api, services, s, "I live in Lisbon.")
    reviewed(api, services, s, "I live in Lisbon.")
    first, second = sorted(listed(api, "PENDING"), key=lambda r: r["id"])
    # When both are approved
    decide(api, first["id"], "approve")
    refused = decide(api, second["id"], "approve", expect=409)
    # Then the second is refused as a restatement, naming the memory it restates
    assert (refused["error"]["code"], refused["error"]["restated"]) == (
        "proposal_restates",
        first["id"],
    )
    assert api.ok("GET", f"{A}/-/records/{second['id']}")["status"] == "PENDING"
    assert [r["id"] for r in listed(api)] == [first["id"]]


def test_only_an_apps_credential_decides_and_unknown_records_are_404(api, services):
    s = setup(api)
    reviewed(api, services, s, "I live in Lisbon.")
    [proposal] = listed(api, "PENDING")
    path = f"{A}/-/records/{proposal['id']}"
    # A credential bound to the agent role is the agent's own: it cannot approve its proposals
    as_agent = api.as_tenant("acme", roles="agent")
    status, body = as_agent.call("POST", f"{path}/approve")
    assert (status, body["error"]["code"]) == (403, "proposal_forbidden")
    # nor can a token that only runs its own sessions, nor a reader
    for scope in ("sessions:own", "agents:read"):
        status, body = api.as_tenant("acme", scope=scope).call("POST", f"{path}/reject")
        assert (status, body["error"]["code"]) == (403, "insufficient_scope")
    assert api.ok("GET", path)["status"] == "PENDING"
    # An app's credential naming other roles may
    helper_app = api.as_tenant("acme", roles="programmatic")
    assert helper_app.ok("POST", f"{path}/approve")["status"] == "ACTIVE"
    for verb in ("approve", "reject"):
        missing = decide(api, "rec_none", verb, expect=404)
        assert missing["error"]["code"] == "record_not_found"


def test_a_bad_approval_setting_is_refused_and_nothing_saved(api):
    api.ok("PUT", A, manifest("auto"), expect=201)
    status, body = api.call("PUT", A, manifest("sometimes"))
    # refused as every other bad manifest field is, naming the field and what it takes
    assert (status, body["error"]["code"]) == (400, "invalid_request")
    [problem] = body["error"]["problems"]
    assert problem["field"] == "body.harness.memory.extraction.approval"
    assert "'auto' or 'review'" in problem["message"]
    saved = api.ok("GET", A)
    assert saved["manifestVersion"] == 1
    assert saved["manifest"]["harness"]["memory"]["extraction"]["approval"] == "auto"


def test_writes_apply_at_once_by_default(api, services):
    s = setup(api, approval="auto")
    t = reviewed(api, services, s, "I live in Lisbon.")
    assert (t["extraction"]["added"], t["extraction"]["proposed"]) == (1, 0)
    assert [r["summary"] for r in listed(api)] == ["User lives in Lisbon"]
    assert listed(api, "PENDING") == []
