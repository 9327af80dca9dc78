"""Named manifests (`/v1/agent-manifests/{name}`) and the agents that follow one, on both
stores."""

import pytest

pytestmark = pytest.mark.integration

N = "/v1/agent-manifests"
A = "/v1/agents/teams/web/releases"
B = "/v1/agents/teams/web/docs"
RELEASES = {
    "harness": {
        "instructions": ["Help the team ship releases."],
        "memory": {"access": "read_write", "instructions": "Keep the team's release conventions."},
    },
}
LABELLED = {
    "harness": {
        "memory": {
            "enabled": True,
            "labels": {"customer_id": {"number": 5, "description": "The customer."}},
        }
    }
}


def with_instructions(text):
    return {"harness": {**RELEASES["harness"], "instructions": [text]}}


def test_save_read_and_version_a_named_manifest(api):
    # Given a manifest saved under a name, then saved again
    created = api.ok("PUT", f"{N}/releases", RELEASES, expect=201)
    assert (created["name"], created["version"]) == ("releases", 1)
    assert created["manifest"]["harness"]["memory"]["access"] == "read_write"
    second = api.ok("PUT", f"{N}/releases", with_instructions("Ship on Tuesdays."))

    # Then it reads back at its current version, with every version kept, newest first
    assert second["version"] == 2
    got = api.ok("GET", f"{N}/releases")
    assert got["version"] == 2
    assert got["manifest"]["harness"]["instructions"] == ["Ship on Tuesdays."]
    versions = api.ok("GET", f"{N}/releases/versions")["versions"]
    assert [v["version"] for v in versions] == [2, 1]
    first = api.ok("GET", f"{N}/releases/versions/1")
    assert first["manifest"]["harness"]["instructions"] == ["Help the team ship releases."]
    page = api.ok("GET", f"{N}/releases/versions", limit=1)
    assert [v["version"] for v in page["versions"]] == [2] and page["next"]
    api.ok("PUT", f"{N}/alpha", RELEASES, expect=201)
    assert [m["name"] for m in api.ok("GET", N)["manifests"]] == ["alpha", "releases"]


def test_bad_names_and_documents_are_refused_and_change_nothing(api):
    for name in ("Releases", "-x", "a b"):
        status, body = api.call("PUT", f"{N}/{name}", RELEASES)
        assert (status, body["error"]["code"]) == (400, "invalid_manifest_name"), name
    status, body = api.call("PUT", f"{N}/releases", {"manifest": "other"})
    assert (status, body["error"]["code"]) == (400, "invalid_manifest")
    status, body = api.call(
        "PUT", f"{N}/releases", {"harness": {"memory": {"access": "sometimes"}}}
    )
    assert status == 400
    assert api.ok("GET", N)["manifests"] == []
    for path in (f"{N}/releases", f"{N}/releases/versions", f"{N}/releases/versions/1"):
        status, body = api.call("GET", path)
        assert (status, body["error"]["code"]) == (404, "manifest_not_found"), path
    api.ok("PUT", f"{N}/releases", RELEASES, expect=201)
    status, body = api.call("GET", f"{N}/releases/versions/9")
    assert (status, body["error"]["code"]) == (404, "manifest_version_not_found")


def test_agents_follow_a_named_manifest_and_move_with_each_version(api):
    # Given a named manifest and two agents that follow it
    api.ok("PUT", f"{N}/releases", RELEASES, expect=201)
    agent = api.ok("PUT", A, {"manifest": "releases"}, expect=201)
    api.ok("PUT", B, {"manifest": "releases"}, expect=201)
    assert agent["manifest"]["harness"]["memory"]["access"] == "read_write"
    assert agent["manifest"]["manifest"] == {"name": "releases", "version": 1}
    session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    before = api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)

    # When the named manifest gets a new version
    api.ok("PUT", f"{N}/releases", with_instructions("Ship on Tuesdays."))

    # Then both agents run it, each as a new version of its own that names where it came from
    for path in (A, B):
        moved = api.ok("GET", path)
        assert moved["manifestVersion"] == 2, path
        assert moved["manifest"]["harness"]["instructions"] == ["Ship on Tuesdays."]
        assert moved["manifest"]["manifest"] == {"name": "releases", "version": 2}
    # And each turn still records the version it ran, which names the named version
    after = api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)
    assert (before["manifestVersion"], after["manifestVersion"]) == (1, 2)
    ran = api.ok("GET", f"{A}/-/manifest-versions/{before['manifestVersion']}")
    assert ran["manifest"]["manifest"] == {"name": "releases", "version": 1}


def test_an_agent_given_its_own_harness_stops_following(api):
    api.ok("PUT", f"{N}/releases", RELEASES, expect=201)
    api.ok("PUT", A, {"manifest": "releases"}, expect=201)
    api.ok("PUT", A, {"harness": {"memory": {"access": "read_only"}}})

    api.ok("PUT", f"{N}/releases", with_instructions("Ship on Tuesdays."))

    agent = api.ok("GET", A)
    assert agent["manifestVersion"] == 2
    assert agent["manifest"]["harness"]["memory"]["access"] == "read_only"
    assert "manifest" not in agent["manifest"]


def test_following_is_refused_when_the_body_is_not_one_name(api):
    api.ok("PUT", f"{N}/releases", RELEASES, expect=201)
    for body, code in (
        ({"manifest": "missing"}, (404, "manifest_not_found")),
        ({"manifest": "releases", "harness": {}}, (400, "invalid_manifest")),
        ({"manifest": {"name": "releases", "version": 1}}, (400, "invalid_manifest")),
        ({"manifest": "Bad Name"}, (400, "invalid_manifest_name")),
    ):
        status, answer = api.call("PUT", A, body)
        assert (status, answer["error"]["code"]) == code, body
    assert api.ok("GET", "/v1/agents")["agents"] == []


def test_a_version_that_would_break_a_follower_is_refused(api):
    # Given an agent that follows a manifest declaring a label
    api.ok("PUT", f"{N}/support", LABELLED, expect=201)
    api.ok("PUT", A, {"manifest": "support"}, expect=201)

    # When a new version renumbers that label
    renumbered = {
        "harness": {
            "memory": {
                "enabled": True,
                "labels": {"customer_id": {"number": 6, "description": "The customer."}},
            }
        }
    }
    status, _ = api.call("PUT", f"{N}/support", renumbered)

    # Then it is refused, and neither the name nor the agent moved
    assert status == 400
    assert api.ok("GET", f"{N}/support")["version"] == 1
    assert api.ok("GET", A)["manifestVersion"] == 1


def test_delete_is_refused_while_an_agent_follows(api):
    api.ok("PUT", f"{N}/releases", RELEASES, expect=201)
    api.ok("PUT", A, {"manifest": "releases"}, expect=201)

    status, body = api.call("DELETE", f"{N}/releases")
    assert (status, body["error"]["code"]) == (409, "manifest_in_use")
    assert body["error"]["agents"] == ["teams/web/releases"]
    assert api.ok("GET", f"{N}/releases")["version"] == 1

    api.ok("DELETE", A, expect=204)
    api.ok("DELETE", f"{N}/releases", expect=204)
    assert api.call("GET", f"{N}/releases")[0] == 404
    # A name saved again after its deletion starts over
    assert api.ok("PUT", f"{N}/releases", RELEASES, expect=201)["version"] == 1
    assert [v["version"] for v in api.ok("GET", f"{N}/releases/versions")["versions"]] == [1]


def test_named_manifests_need_the_agent_scopes(api):
    api.ok("PUT", f"{N}/releases", RELEASES, expect=201)
    reader = api.as_tenant("acme", scope="agents:read")
    assert reader.ok("GET", f"{N}/releases")["version"] == 1
    assert reader.ok("GET", N)["manifests"][0]["name"] == "releases"
    for method, body in (("PUT", RELEASES), ("DELETE", None)):
        status, answer = reader.call(method, f"{N}/releases", body)
        assert (status, answer["error"]["code"]) == (403, "insufficient_scope"), method
    # Another tenant sees none of it
    other = api.as_tenant("globex")
    assert other.call("GET", f"{N}/releases")[0] == 404
    assert other.ok("GET", N)["manifests"] == []
