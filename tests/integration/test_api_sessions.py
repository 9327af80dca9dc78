"""Sessions and turns over the API, on both stores."""

from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"


@pytest.fixture
def session(api):
    api.ok("PUT", A, {"harness": {}}, expect=201)
    return api.ok("POST", A + "/-/sessions", expect=201)["id"]


def turns(session_id):
    return f"{A}/-/sessions/{session_id}/turns"


def test_a_session_is_created_with_a_generated_or_chosen_id(api, session):
    assert session.startswith("ses_")
    chosen = api.ok(
        "POST", A + "/-/sessions", {"id": "support-42", "metadata": {"channel": "web"}}, expect=201
    )
    assert chosen["id"] == "support-42"
    assert api.ok("GET", A + "/-/sessions/support-42")["metadata"] == {"channel": "web"}
    listed = [s["id"] for s in api.ok("GET", A + "/-/sessions")["sessions"]]
    assert sorted(listed) == sorted([session, "support-42"])


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"id": "support-42"}, 409, "session_exists"),
        ({"id": "has space"}, 400, "invalid_session_id"),
        ({"id": "a/b"}, 400, "invalid_session_id"),
        ({"unknown": 1}, 400, "invalid_request"),
        ({"metadata": {"k": 5}}, 400, "invalid_request"),
    ],
)
def test_bad_session_requests_are_refused_and_change_nothing(api, session, body, status, code):
    api.ok("POST", A + "/-/sessions", {"id": "support-42"}, expect=201)
    got, payload = api.call("POST", A + "/-/sessions", body)
    assert (got, payload["error"]["code"]) == (status, code)
    assert len(api.ok("GET", A + "/-/sessions")["sessions"]) == 2


def test_a_session_of_a_missing_agent_is_404(api):
    status, payload = api.call("POST", "/v1/agents/nobody/-/sessions")
    assert (status, payload["error"]["code"]) == (404, "agent_not_found")


def test_turns_are_numbered_in_order_and_record_how_they_started(api, session):
    first = api.ok("POST", turns(session), {"started_by": "person"}, expect=201)
    second = api.ok(
        "POST",
        turns(session),
        {
            "started_by": "wake",
            "trigger_run_id": "run-7",
            "preview": True,
            "replay_of": first["id"],
        },
        expect=201,
    )
    assert (first["sequence"], second["sequence"]) == (1, 2)
    got = api.ok("GET", f"{turns(session)}/{second['id']}")
    assert got["startedBy"] == "wake"
    assert got["triggerRunId"] == "run-7"
    assert got["preview"] is True
    assert got["replayOf"] == first["id"]
    assert got["status"] == "open"
    assert api.ok("GET", f"{A}/-/sessions/{session}")["turns"] == 2


def test_a_turn_runs_the_manifest_version_current_when_it_began(api, session):
    before = api.ok("POST", turns(session), expect=201)
    api.ok("PUT", A, {"harness": {"memory": {"enabled": True}}})
    after = api.ok("POST", turns(session), expect=201)
    assert (before["manifestVersion"], after["manifestVersion"]) == (1, 2)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"started_by": "robot"}, "invalid_request"),
        ({"replay_of": "trn_missing"}, "invalid_replay_of"),
        ({"preview": "maybe"}, "invalid_request"),
    ],
)
def test_bad_turn_requests_are_400_and_take_no_sequence(api, session, body, code):
    status, payload = api.call("POST", turns(session), body)
    assert (status, payload["error"]["code"]) == (400, code)
    assert api.ok("POST", turns(session), expect=201)["sequence"] == 1


def test_a_turn_in_a_missing_session_is_404(api, session):
    status, payload = api.call("POST", turns("ses_missing"))
    assert (status, payload["error"]["code"]) == (404, "session_not_found")
    # A replay in a missing session: the session is what is missing, not the turn replayed.
    status, payload = api.call("POST", turns("ses_missing"), {"replay_of": "trn_1"})
    assert (status, payload["error"]["code"]) == (404, "session_not_found")
    status, payload = api.call("GET", f"{turns(session)}/trn_missing")
    assert (status, payload["error"]["code"]) == (404, "turn_not_found")


@pytest.mark.parametrize("end", ["commit", "rollback"])
def test_an_ended_turn_cannot_change(api, session, end):
    turn = api.ok("POST", turns(session), expect=201)["id"]
    ended = api.ok("POST", f"{turns(session)}/{turn}/{end}")
    assert ended["status"] == {"commit": "committed", "rollback": "rolled_back"}[end]
    assert ended["endedAt"] is not None
    for again in ("commit", "rollback"):
        status, payload = api.call("POST", f"{turns(session)}/{turn}/{again}")
        assert (status, payload["error"]["code"]) == (409, "turn_closed")
    assert api.ok("GET", f"{turns(session)}/{turn}")["status"] == ended["status"]


def test_concurrent_begins_get_gap_free_sequences(api, session, store):
    if type(store).__name__ == "DynamoStore":
        pytest.skip("moto serialises calls; the contract suite covers DynamoDB's condition")
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: api.call("POST", turns(session)), range(40)))
    assert {status for status, _ in results} == {201}
    assert sorted(body["sequence"] for _, body in results) == list(range(1, 41))
    assert api.ok("GET", f"{A}/-/sessions/{session}")["turns"] == 40


def test_a_sessions_turns_are_listed_in_order_a_page_at_a_time(api, session):
    ids = [api.ok("POST", turns(session), expect=201)["id"] for _ in range(5)]
    api.ok("POST", f"{turns(session)}/{ids[1]}/rollback")
    first = api.ok("GET", turns(session), limit=3)
    second = api.ok("GET", turns(session), limit=3, cursor=first["next"])
    listed = first["turns"] + second["turns"]
    assert [t["id"] for t in listed] == ids and second["next"] is None
    assert [t["status"] for t in listed][:2] == ["open", "rolled_back"]
    status, payload = api.call("GET", turns("ses_missing"))
    assert (status, payload["error"]["code"]) == (404, "session_not_found")
