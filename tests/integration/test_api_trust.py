"""The trust model through the cloud shape's JWT claims: `sessions:own` reaches only its own
subject's sessions, a credential limited to some caller roles cannot state another, `admin`
alone sets limits."""

import pytest

from agent_memory.api.context import principal_from_event
from agent_memory.domain.kernel.auth import ALL_ROLES
from apiclient import http_event

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web"
MANIFEST = {"harness": {"memory": {"enabled": True, "tools": ["add_memory", "read_memory"]}}}


def test_sessions_own_reaches_only_the_sessions_its_subject_started(api):
    api.ok("PUT", A, MANIFEST, expect=201)
    alice = api.as_tenant("acme", scope="sessions:own", sub="alice")
    bob = api.as_tenant("acme", scope="sessions:own", sub="bob")
    session = alice.ok("POST", f"{A}/-/sessions", {}, expect=201)
    assert session["owner"] == "alice"
    sid = session["id"]
    turn = alice.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
    turn_path = f"{A}/-/sessions/{sid}/turns/{turn}"

    # Bob, of the same tenant, cannot tell alice's session from one that does not exist.
    for method, path in (
        ("GET", f"{A}/-/sessions/{sid}"),
        ("POST", f"{A}/-/sessions/{sid}/turns"),
        ("POST", f"{turn_path}/commit"),
        ("POST", f"{turn_path}/rollback"),
        ("GET", turn_path),
    ):
        status, body = bob.call(method, path)
        assert (status, body["error"]["code"]) == (404, "session_not_found"), (method, path)
    status, _ = bob.call(
        "POST", f"{turn_path}/tools/add_memory", {"summary": "x", "caller": {"role": "agent"}}
    )
    assert status == 404
    assert alice.ok("GET", turn_path)["status"] == "open"
    # Listing every session is not for a token that reaches only its own.
    assert bob.call("GET", f"{A}/-/sessions")[0] == 403
    # agents:write reaches every session (the app that manages the tenant).
    assert api.ok("POST", f"{turn_path}/commit")["status"] == "committed"


def test_a_sessions_own_token_cannot_probe_session_ids_by_naming_one(api):
    # Given alice's session, one an app named, and an id nobody holds
    api.ok("PUT", A, MANIFEST, expect=201)
    alice = api.as_tenant("acme", scope="sessions:own", sub="alice")
    bob = api.as_tenant("acme", scope="sessions:own", sub="bob")
    alices = alice.ok("POST", f"{A}/-/sessions", {}, expect=201)["id"]
    api.ok("POST", f"{A}/-/sessions", {"id": "support-42"}, expect=201)
    before = api.ok("GET", f"{A}/-/sessions")["sessions"]

    # When bob starts a session under each of those ids (and alice under her own)
    answers = {
        sid: who.call("POST", f"{A}/-/sessions", {"id": sid})
        for who, sid in ((bob, alices), (bob, "support-42"), (bob, "never-made"), (alice, alices))
    }

    # Then every answer is the same refusal, whether the id is taken or not, and none starts
    # a session: a 409 would tell bob that someone's session holds an id his reads answer 404
    for sid, (status, body) in answers.items():
        assert (status, body["error"]["code"]) == (403, "session_id_forbidden"), sid
    assert api.ok("GET", f"{A}/-/sessions")["sessions"] == before
    # And a session without a chosen id still starts, under an id the service chose
    made = bob.ok("POST", f"{A}/-/sessions", {"metadata": {"channel": "web"}}, expect=201)
    assert made["id"].startswith("ses_") and made["owner"] == "bob"
    # While a token that reads every session names sessions as before (409 when taken)
    status, body = api.call("POST", f"{A}/-/sessions", {"id": "support-42"})
    assert (status, body["error"]["code"]) == (409, "session_exists")


def test_a_helper_only_credential_cannot_act_as_the_agent(api):
    api.ok("PUT", A, MANIFEST, expect=201)
    api.ok("POST", f"{A}/-/sessions", {"id": "s1"}, expect=201)
    turn = api.ok("POST", f"{A}/-/sessions/s1/turns", {}, expect=201)["id"]
    tools = f"{A}/-/sessions/s1/turns/{turn}/tools"
    helper = api.as_tenant("acme", roles="helper")
    status, body = helper.call(
        "POST", f"{tools}/add_memory", {"summary": "x", "caller": {"role": "agent"}}
    )
    assert (status, body["error"]["code"]) == (403, "memory.forbidden")
    status, body = helper.call("POST", f"{A}/-/sessions/s1/turns/{turn}/recall", {"context": "x"})
    assert (status, body["error"]["code"]) == (403, "memory.forbidden")  # recall defaults to agent
    # Nothing was recorded for the refused calls; the role it holds still works.
    assert api.ok("GET", f"{A}/-/sessions/s1/turns/{turn}")["executions"] == []
    read = helper.call(
        "POST", f"{tools}/read_memory", {"id": "rec_none", "caller": {"role": "helper"}}
    )
    assert (read[0], read[1]["error"]["code"]) == (404, "memory.not_found")  # refused for no role
    assert len(api.ok("GET", f"{A}/-/sessions/s1/turns/{turn}")["executions"]) == 1


def test_roles_and_actor_come_from_the_claims():
    def principal(**claims):
        event = http_event("GET", "/v1/agents")
        event["requestContext"]["authorizer"]["jwt"]["claims"].update(claims)
        return principal_from_event(event, "tenant", "https://example.com/roles")

    assert principal().roles == ALL_ROLES  # no claim: any role
    assert principal(**{"https://example.com/roles": "[helper programmatic]"}).roles == {
        "helper",
        "programmatic",
    }
    assert principal(**{"https://example.com/roles": ["helper", "root"]}).roles == {"helper"}
    assert principal(**{"https://example.com/roles": ""}).roles == frozenset()
    assert principal().audit_name == "api:u1"  # a JWT's actor is its subject
