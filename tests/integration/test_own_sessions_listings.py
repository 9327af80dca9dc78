"""A `sessions:own` token learns no other subject's session or turn id from the agent-wide
listings: file memory versions and model usage name only the sessions the token reaches."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/support/bot"
AGENT = {"role": "agent"}


def write_in_own_session(client, path, text):
    """A turn of a new session of the token's subject writing a memory: (session, turn)."""
    sid = client.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    turn = client.ok("POST", f"{A}/-/sessions/{sid}/turns", expect=201)["id"]
    base = f"{A}/-/sessions/{sid}/turns/{turn}"
    body = {"command": "create", "path": f"/memories/{path}", "file_text": text, "caller": AGENT}
    client.ok("POST", f"{base}/tools/memory", body)
    client.ok("POST", f"{base}/tools/search_memory", {"query": text, "caller": AGENT})
    client.ok("POST", f"{base}/commit")
    return sid, turn


def test_versions_and_usage_hide_the_ids_of_sessions_the_token_cannot_reach(api):
    # Given alice and bob, each with a sessions:own token, each writing a memory in a session
    api.ok("PUT", A, {"harness": {"memory": {"enabled": True}}}, expect=201)
    alice = api.as_tenant("acme", "sessions:own", sub="alice")
    bob = api.as_tenant("acme", "sessions:own", sub="bob")
    alice_session, alice_turn = write_in_own_session(alice, "a.md", "alice's note\n")
    bob_session, _ = write_in_own_session(bob, "b.md", "bob's note\n")
    # When alice lists the agent's memory versions
    versions = alice.ok("GET", f"{A}/-/memory-versions")["versions"]
    # Then both changes are listed (the agent's memory is the agent's), but bob's names no
    # session or turn
    by_path = {v["path"]: v for v in versions}
    assert (by_path["/memories/a.md"]["sessionId"], by_path["/memories/a.md"]["turnId"]) == (
        alice_session,
        alice_turn,
    )
    assert by_path["/memories/b.md"]["sessionId"] is None
    assert by_path["/memories/b.md"]["turnId"] is None
    # And one version read by id hides it the same way
    bobs = alice.ok("GET", f"{A}/-/memory-versions/{by_path['/memories/b.md']['id']}")
    assert (bobs["sessionId"], bobs["turnId"]) == (None, None)
    # And the usage keeps every entry but names no turn, session or execution of bob's (where
    # the shape records usage: the embedded shape's embedder does, for indexing and searches)
    usage = {e["id"]: e for e in alice.ok("GET", f"{A}/-/usage")["usage"]}
    all_usage = {e["id"]: e for e in api.ok("GET", f"{A}/-/usage")["usage"]}
    assert usage.keys() == all_usage.keys()
    for entry_id, entry in all_usage.items():
        seen = usage[entry_id]
        if entry.get("sessionId") == bob_session:
            assert (seen["sessionId"], seen["turnId"], seen["executionId"]) == (None, None, None)
        else:
            assert seen == entry
    # While a token that reads every session sees every id
    everyone = api.ok("GET", f"{A}/-/memory-versions")["versions"]
    assert {v["sessionId"] for v in everyone} == {alice_session, bob_session}
