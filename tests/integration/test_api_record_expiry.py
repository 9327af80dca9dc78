"""Record expiry through the API, on both stores: a kind's default lifetime, `PATCH` of a
record's expiresAt, and an expired record leaving recall, search and listings at once."""

import time
from datetime import UTC, datetime, timedelta

import pytest
from test_api_records import A, Turn, manifest, session, stored

pytestmark = pytest.mark.integration


def iso(value):
    return value.isoformat().replace("+00:00", "Z")


def at(text):
    return datetime.fromisoformat(text)


@pytest.fixture
def agent(api):
    api.ok("PUT", A, manifest(expire_after={"event": "P30D"}), expect=201)
    return api


def committed(api, summary, **args):
    turn = Turn(api, session(api))
    record = turn.add(summary, scope="agent", **args)
    turn.commit()
    return api.ok("GET", f"{A}/-/records/{record['id']}")


def test_a_kind_with_a_lifetime_gives_its_new_records_an_expiry(agent):
    # Given an agent whose events live 30 days
    # When a turn writes an event and a fact
    event = committed(agent, "The launch happened on Monday", kind="event")
    fact = committed(agent, "Releases ship on Tuesdays", kind="fact")
    # Then the event expires 30 days after it was written, the fact never
    assert at(event["expiresAt"]) - at(event["createdAt"]) == timedelta(days=30)
    assert fact.get("expiresAt") is None
    versions = agent.ok("GET", f"{A}/-/records/{event['id']}/versions")["versions"]
    assert versions[0]["record"]["expiresAt"] == event["expiresAt"]


@pytest.mark.parametrize(
    "expire_after",
    [{"mood": "P1D"}, {"event": "30 days"}, {"event": "P1M"}, {"event": "P0D"}, {"event": 30}],
)
def test_expire_after_with_an_unknown_kind_or_a_bad_duration_is_refused(agent, expire_after):
    # Given an agent at manifest version 1
    # When a new version names an undeclared kind or a duration that is not one
    status, body = agent.call("PUT", A, manifest(expire_after=expire_after))
    # Then it is a 400 naming the field (as every manifest the schema refuses) and nothing
    # is saved
    assert (status, body["error"]["code"]) == (400, "invalid_request"), body
    assert "expire_after" in body["error"]["message"]
    assert agent.ok("GET", A)["manifestVersion"] == 1


def test_patch_sets_the_expiry_as_a_new_version_naming_who_set_it(agent):
    record = committed(agent, "Customer c-1 renews in May")
    later = datetime.now(UTC) + timedelta(days=3)

    changed = agent.ok("PATCH", f"{A}/-/records/{record['id']}", {"expiresAt": iso(later)})

    assert (changed["version"], changed["status"]) == (2, "ACTIVE")
    assert at(changed["expiresAt"]) == later
    versions = agent.ok("GET", f"{A}/-/records/{record['id']}/versions")["versions"]
    assert versions[0]["operation"] == "set_expiry"
    assert versions[0]["changedBy"]["actor"].startswith("api:")
    # Still recalled and listed until then
    assert [r["id"] for r in stored(agent)] == [record["id"]]
    # Cleared: it no longer expires
    cleared = agent.ok("PATCH", f"{A}/-/records/{record['id']}", {"expiresAt": None})
    assert (cleared["version"], cleared.get("expiresAt")) == (3, None)


def test_an_expired_record_leaves_recall_search_and_listings_at_once(agent, store):
    # Given two records, one of which is given an expiry already past
    keep = committed(agent, "Releases ship on Tuesdays")
    gone = committed(agent, "Releases ship on Fridays")
    past = datetime.now(UTC) - timedelta(seconds=1)
    changed = agent.ok("PATCH", f"{A}/-/records/{gone['id']}", {"expiresAt": iso(past)})
    # Then, with no sweep, it is EXPIRED and gone from listings, ranked listings and search
    assert changed["status"] == "EXPIRED"
    assert [r["id"] for r in stored(agent)] == [keep["id"]]
    assert [r["id"] for r in stored(agent, query="releases ship")] == [keep["id"]]
    turn = Turn(agent, session(agent))
    assert [r["id"] for r in turn.search(query="releases ship")] == [keep["id"]]
    assert [r["id"] for r in turn.search()] == [keep["id"]]
    found = agent.ok("GET", f"{A}/-/search", query="releases ship", types="records")
    assert gone["id"] not in str(found)
    if type(store).__name__ == "SqliteStore":  # the cloud's index is fed by the stream
        assert keep["id"] in str(found)
    # It is still read by id, with its versions, and listed when asked for
    assert agent.ok("GET", f"{A}/-/records/{gone['id']}")["status"] == "EXPIRED"
    assert turn.tool("read_memory", id=gone["id"])["sources"][0]["status"] == "EXPIRED"
    assert [r["id"] for r in stored(agent, status="EXPIRED")] == [gone["id"]]
    assert {r["id"] for r in stored(agent, status="all")} == {keep["id"], gone["id"]}
    # An agent cannot delete what has expired
    status, body = turn.call("delete_memory", id=gone["id"])
    assert (status, body["error"]["code"]) == (409, "memory.not_active"), body
    assert "EXPIRED" in body["error"]["message"]
    # The change is in the audit trail
    entries = agent.ok("GET", "/v1/audit")["entries"]
    assert any(e["method"] == "PATCH" and e["target"].endswith(gone["id"]) for e in entries), (
        entries
    )


def test_a_future_expiry_takes_effect_when_it_passes_without_any_sweep(agent):
    record = committed(agent, "The standup moved to 10:00")
    soon = datetime.now(UTC) + timedelta(seconds=1.5)
    agent.ok("PATCH", f"{A}/-/records/{record['id']}", {"expiresAt": iso(soon)})
    assert [r["id"] for r in stored(agent)] == [record["id"]]

    time.sleep(max(0.0, (soon - datetime.now(UTC)).total_seconds()) + 0.1)

    assert stored(agent) == []
    assert agent.ok("GET", f"{A}/-/records/{record['id']}")["status"] == "EXPIRED"


def test_a_later_expiry_brings_an_expired_record_back(agent):
    record = committed(agent, "Customer c-2 is on the gold plan")
    past = iso(datetime.now(UTC) - timedelta(minutes=1))
    agent.ok("PATCH", f"{A}/-/records/{record['id']}", {"expiresAt": past})
    assert stored(agent) == []

    back = agent.ok("PATCH", f"{A}/-/records/{record['id']}", {"expiresAt": None})

    assert (back["status"], back["version"]) == ("ACTIVE", 3)
    assert [r["id"] for r in stored(agent)] == [record["id"]]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"expiresAt": "tomorrow"}, "invalid_expires_at"),
        ({"expiresAt": "2030-01-01T00:00:00"}, "invalid_expires_at"),
        ({"expiresAt": "2030-02-30T00:00:00Z"}, "invalid_expires_at"),
        ({"expiresAt": 1767225600}, None),
        ({}, None),
        ({"expiresAt": None, "status": "ACTIVE"}, None),
    ],
)
def test_a_bad_expiry_is_a_400_and_changes_nothing(agent, body, code):
    record = committed(agent, "Customer c-3 pays by card")
    status, answer = agent.call("PATCH", f"{A}/-/records/{record['id']}", body)
    assert status == 400, answer
    if code:
        assert answer["error"]["code"] == code
    assert agent.ok("GET", f"{A}/-/records/{record['id']}")["version"] == 1


def test_an_expiry_on_a_record_that_is_missing_or_deleted_is_refused(agent):
    later = {"expiresAt": iso(datetime.now(UTC) + timedelta(days=1))}
    status, answer = agent.call("PATCH", f"{A}/-/records/rec_nope", later)
    assert (status, answer["error"]["code"]) == (404, "record_not_found")
    record = committed(agent, "Customer c-4 left")
    agent.ok("DELETE", f"{A}/-/records/{record['id']}")
    status, answer = agent.call("PATCH", f"{A}/-/records/{record['id']}", later)
    assert (status, answer["error"]["code"]) == (409, "record_not_active")
    assert agent.ok("GET", f"{A}/-/records/{record['id']}")["version"] == 2


def test_a_lifetime_comes_from_the_manifest_version_the_turn_ran(api):
    # Given a turn begun while the agent's events had no lifetime
    api.ok("PUT", A, manifest(), expect=201)
    early = Turn(api, session(api))
    # When the manifest gives events a day before that turn commits
    api.ok("PUT", A, manifest(expire_after={"event": "P1D"}))
    record = early.add("The demo happened", kind="event", scope="agent")
    early.commit()
    # Then its event keeps none (a turn runs the version it began with); the next turn's has one
    assert api.ok("GET", f"{A}/-/records/{record['id']}").get("expiresAt") is None
    later = committed(api, "The retro happened", kind="event")
    assert at(later["expiresAt"]) - at(later["createdAt"]) == timedelta(days=1)
