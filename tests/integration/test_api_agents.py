"""Agents over the API, on both stores: manifests, versions, listing, fork, delete, errors."""

import json

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "labels": {"customer_id": {"number": 5, "description": "The customer."}},
            "pinned": {"max_tokens": 2000},
            "extraction": {"every": "turn"},
        },
        "history": {"index": "messages_and_tools"},
    }
}


def with_labels(**labels):
    return {"harness": {"memory": {"labels": labels}}}


def test_put_creates_then_each_save_is_a_new_version(api):
    created = api.ok("PUT", A, MANIFEST, expect=201)
    assert created["id"] == "teams/web/releases"
    assert created["manifestVersion"] == 1
    assert created["manifest"]["harness"]["memory"]["labels"]["customer_id"]["number"] == 5

    again = api.ok("PUT", A, MANIFEST)
    assert again["manifestVersion"] == 2
    assert api.ok("GET", A)["manifestVersion"] == 2

    versions = api.ok("GET", A + "/-/manifest-versions")
    assert [v["version"] for v in versions["versions"]] == [2, 1]
    assert api.ok("GET", A + "/-/manifest-versions/1")["manifest"] == created["manifest"]


@pytest.mark.parametrize("segments", [1, 2, 3, 4, 5])
def test_ids_of_one_to_five_segments(api, segments):
    agent_id = "/".join(f"s{i}" for i in range(segments))
    assert api.ok("PUT", f"/v1/agents/{agent_id}", {"harness": {}}, expect=201)["id"] == agent_id
    assert api.ok("GET", f"/v1/agents/{agent_id}")["id"] == agent_id
    session = api.ok("POST", f"/v1/agents/{agent_id}/-/sessions", expect=201)
    assert session["agentId"] == agent_id


def test_a_label_keeps_its_number_and_a_refused_save_changes_nothing(api):
    api.ok("PUT", A, with_labels(customer_id={"number": 5}), expect=201)
    api.ok("PUT", A, with_labels(customer_id={"number": 5}, region={"number": 6}))

    status, body = api.call("PUT", A, with_labels(customer_id={"number": 7}, region={"number": 6}))
    assert (status, body["error"]["code"]) == (400, "label_renumbered")
    status, body = api.call("PUT", A, with_labels(region={"number": 6}))
    assert (status, body["error"]["code"]) == (400, "label_removed")

    # Nothing changed: still version 2, still two versions.
    assert api.ok("GET", A)["manifestVersion"] == 2
    assert len(api.ok("GET", A + "/-/manifest-versions")["versions"]) == 2


@pytest.mark.parametrize(
    "body",
    [
        with_labels(a={"number": 4}),
        with_labels(a={"number": 5}, b={"number": 5}),
        {"harness": {"memory": {"instructions": "x" * 4097}}},
        {"harness": {"memory": {"scope": {"read": ["everyone"]}}}},
        {"harness": {"memory": {"typo": True}}},
        "{not json",
        [],
    ],
)
def test_an_invalid_manifest_is_a_400_and_stores_nothing(api, body):
    status, payload = api.call("PUT", A, body)
    assert status == 400
    assert set(payload["error"]) >= {"code", "message"}
    assert api.call("GET", A)[0] == 404
    assert api.ok("GET", "/v1/agents")["agents"] == []


@pytest.mark.parametrize("path", ["/v1/agents/a//b", "/v1/agents/a/b/", "/v1/agents/a b"])
def test_a_malformed_agent_id_is_a_400(api, path):
    status, payload = api.call("PUT", path, {"harness": {}})
    assert (status, payload["error"]["code"]) == (400, "invalid_agent_id")


def test_listing_pages_through_agents_in_id_order(api):
    ids = [f"team/agent-{i:02d}" for i in range(7)]
    for agent_id in reversed(ids):
        api.ok("PUT", f"/v1/agents/{agent_id}", {"harness": {}}, expect=201)
    seen, cursor = [], None
    while True:
        page = api.ok("GET", "/v1/agents", limit=3, cursor=cursor)
        seen += [a["id"] for a in page["agents"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == ids


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ({"limit": 0}, "invalid_request"),
        ({"limit": 201}, "invalid_request"),
        ({"cursor": "garbage!"}, "invalid_cursor"),
    ],
)
def test_bad_paging_parameters_are_400(api, query, code):
    status, payload = api.call("GET", "/v1/agents", **query)
    assert (status, payload["error"]["code"]) == (400, code)


def test_manifest_versions_page_newest_first(api):
    for _ in range(5):
        api.call("PUT", A, {"harness": {}})
    first = api.ok("GET", A + "/-/manifest-versions", limit=2)
    second = api.ok("GET", A + "/-/manifest-versions", limit=2, cursor=first["next"])
    third = api.ok("GET", A + "/-/manifest-versions", limit=2, cursor=second["next"])
    versions = [v["version"] for p in (first, second, third) for v in p["versions"]]
    assert versions == [5, 4, 3, 2, 1]
    assert third["next"] is None


def test_delete_removes_the_agent_and_everything_it_owns(api):
    api.ok("PUT", A, MANIFEST, expect=201)
    session = api.ok("POST", A + "/-/sessions", expect=201)
    api.ok("POST", f"{A}/-/sessions/{session['id']}/turns", expect=201)

    assert api.call("DELETE", A) == (204, None)

    assert api.call("GET", A)[0] == 404
    assert api.call("GET", f"{A}/-/sessions/{session['id']}")[0] == 404
    assert api.call("DELETE", A)[0] == 404
    # The same id starts clean.
    api.ok("PUT", A, {"harness": {}}, expect=201)
    assert api.ok("GET", A + "/-/sessions")["sessions"] == []
    assert [v["version"] for v in api.ok("GET", A + "/-/manifest-versions")["versions"]] == [1]


def test_fork_copies_the_current_manifest_as_version_one(api):
    api.ok("PUT", A, {"harness": {}}, expect=201)
    api.ok("PUT", A, MANIFEST)
    fork = api.ok("POST", A + "/-/fork", {"id": "teams/web/releases-copy"}, expect=201)
    assert fork["manifestVersion"] == 1
    assert fork["forkedFrom"] == "teams/web/releases"
    assert fork["manifest"] == api.ok("GET", A)["manifest"]

    status, payload = api.call("POST", A + "/-/fork", {"id": "teams/web/releases-copy"})
    assert (status, payload["error"]["code"]) == (409, "agent_exists")
    status, _ = api.call("POST", "/v1/agents/missing/-/fork", {"id": "x"})
    assert status == 404
    status, _ = api.call("POST", A + "/-/fork", {"id": "bad//id"})
    assert status == 400


def test_tenants_never_see_each_other(api):
    api.ok("PUT", A, MANIFEST, expect=201)
    other = api.as_tenant("globex")
    assert other.call("GET", A)[0] == 404
    assert other.ok("GET", "/v1/agents")["agents"] == []
    assert other.call("POST", A + "/-/sessions")[0] == 404
    # globex may use the same id for its own agent, independent of acme's.
    assert other.ok("PUT", A, {"harness": {}}, expect=201)["manifestVersion"] == 1
    assert api.ok("GET", A)["manifestVersion"] == 1
    assert api.ok("GET", A)["manifest"]["harness"]["memory"]["enabled"] is True


def test_scopes_are_enforced(api):
    reader = api.as_tenant("acme", scope="agents:read")
    status, payload = reader.call("PUT", A, {"harness": {}})
    assert (status, payload["error"]["code"]) == (403, "insufficient_scope")
    api.ok("PUT", A, {"harness": {}}, expect=201)
    assert reader.ok("GET", A)["id"] == "teams/web/releases"
    assert reader.call("DELETE", A)[0] == 403
    assert reader.call("POST", A + "/-/sessions")[0] == 403
    runner = api.as_tenant("acme", scope="sessions:own")
    assert runner.call("POST", A + "/-/sessions")[0] == 201
    assert runner.call("PUT", A, {"harness": {}})[0] == 403


def test_a_token_without_a_tenant_is_401(api):
    status, payload = api.as_tenant(None).call("GET", "/v1/agents")
    assert (status, payload["error"]["code"]) == (401, "missing_tenant")


def test_unknown_routes_are_404_in_the_error_shape(api):
    status, payload = api.call("GET", "/v1/agents/a/-/nothing-here")
    assert (status, payload["error"]["code"]) == (404, "route_not_found")


def test_the_openapi_document_is_valid_and_describes_the_scheme(api):
    from openapi_spec_validator import validate

    document = api.ok("GET", "/v1/openapi.json")
    validate(document)
    assert "/v1/agents/{agentId}/-/sessions" in document["paths"]
    assert "/v1/agents/{agentId}" in document["paths"]
    assert "`/-/`" in document["info"]["description"] or "/-/" in document["info"]["description"]
    # Every operation says what it answers when it works, and none the 422 it never sends;
    # each but the public health check (which takes no input) its 400.
    for path, item in document["paths"].items():
        for method, operation in item.items():
            answers = set(operation["responses"])
            assert answers & {"200", "201", "204"}, (method, path)
            assert "422" not in answers, (method, path)
            if operation.get("security") == []:
                assert not operation.get("parameters") and "requestBody" not in operation
                assert answers == {"200"}, (method, path)
            else:
                assert "400" in answers, (method, path)
    begin = document["paths"]["/v1/agents/{agentId}/-/sessions/{session_id}/turns"]["post"]
    assert begin["responses"]["201"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Turn"
    }


@pytest.mark.parametrize("tenant", ["a#b", "x" * 65, "-lead", "has space"])
def test_a_tenant_claim_that_could_break_keys_is_refused(api, tenant):
    status, payload = api.as_tenant(tenant).call("GET", "/v1/agents")
    assert (status, payload["error"]["code"]) == (401, "invalid_tenant")


@pytest.mark.parametrize("content_type", [None, "application/x-www-form-urlencoded", "text/plain"])
def test_a_json_body_counts_whatever_content_type_the_client_declared(api, content_type):
    from apiclient import http_event

    event = http_event("PUT", A, MANIFEST)
    if content_type is None:
        del event["headers"]["content-type"]
    else:
        event["headers"]["content-type"] = content_type
    response = api.handler(event, None)
    assert response["statusCode"] == 201
    assert api.ok("GET", A)["manifest"]["harness"]["memory"]["enabled"] is True


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"content": "x"},
            "unknown top-level key 'content': a manifest takes only harness, or manifest to follow a named one",
        ),
        (
            {"harness": {}, "name": "releases", "runtime": {}},
            "unknown top-level key 'name', 'runtime': a manifest takes only harness, or manifest to follow a named one",
        ),
        (
            {"$schema": "https://example.com/manifest.json", "harness": {}},
            "unknown top-level key '$schema': a manifest takes only harness, or manifest to follow a named one (the SDK drops "
            "`$schema`; leave it out of a direct PUT)",
        ),
        (
            {},
            'a manifest needs `harness`, such as {"harness": {"memory": {}}}, or `manifest`, '
            'the name of a named manifest to follow, such as {"manifest": "releases"}',
        ),
    ],
)
def test_a_manifest_without_harness_or_with_an_unknown_key_saves_nothing(api, body, message):
    # Given an agent at version 1
    api.ok("PUT", A, MANIFEST, expect=201)
    # When a body without harness, or with a key a manifest does not have, is saved, and a new
    # agent is made from one
    status, refused = api.call("PUT", A, body)
    created_status, _ = api.call("PUT", A + "/x.md", body)
    # Then each is a 400 naming the key, and nothing is saved
    assert (status, refused["error"]["code"], refused["error"]["message"]) == (
        400,
        "invalid_manifest",
        message,
    )
    assert created_status == 400
    assert [a["id"] for a in api.ok("GET", "/v1/agents")["agents"]] == ["teams/web/releases"]
    assert api.ok("GET", A)["manifestVersion"] == 1


def test_a_body_that_does_not_parse_says_where(api):
    from apiclient import http_event

    # Given a body cut off in the middle of its second line
    event = http_event("PUT", A, '{"harness": {},\n  "memory": ')
    # When it is sent
    response = api.handler(event, None)
    # Then the 400 says the body is not JSON, and where it breaks
    body = json.loads(response["body"])
    assert (response["statusCode"], body["error"]["code"]) == (400, "invalid_request")
    assert body["error"]["message"] == (
        "the body is not valid JSON: Expecting value at line 2, column 13 (char 28)"
    )
    assert api.call("GET", A)[0] == 404


def test_a_body_that_is_not_json_is_a_400(api):
    from apiclient import http_event

    event = http_event("PUT", A, "summary=x&kind=fact")
    event["headers"]["content-type"] = "application/x-www-form-urlencoded"
    assert api.handler(event, None)["statusCode"] == 400
    assert api.call("GET", A)[0] == 404


@pytest.mark.parametrize(
    "raw",
    [
        '{"content": "half a pair: \\ud800"}',
        '{"content": "a pair the wrong way round: \\udc00\\ud800"}',
        '{"\\udfff": "in a key"}',
    ],
)
def test_a_lone_surrogate_in_a_body_is_a_400_and_writes_nothing(api, raw):
    from apiclient import http_event

    api.ok("PUT", A, {"harness": {}}, expect=201)
    event = http_event("PUT", f"{A}/-/memories/notes.md", {})
    event["body"] = raw
    response = api.handler(event, None)
    assert response["statusCode"] == 400
    assert "surrogate" in json.loads(response["body"])["error"]["message"]
    assert api.call("GET", f"{A}/-/memories/notes.md")[0] == 404


def test_a_surrogate_pair_is_text_like_any_other(api):
    from apiclient import http_event

    api.ok("PUT", A, {"harness": {}}, expect=201)
    event = http_event("PUT", f"{A}/-/memories/notes.md", {})
    event["body"] = '{"content": "a smile: \\ud83d\\ude00"}'
    assert api.handler(event, None)["statusCode"] == 201
    assert api.ok("GET", f"{A}/-/memories/notes.md")["content"] == "a smile: \U0001f600"


def test_an_agent_made_again_under_its_id_runs_its_own_manifest(api):
    # Its versions are numbered from 1 again: the deleted agent's version 1, read once and
    # kept, must not stand in for the new one's (here: agent scope the new one does not write).
    def manifest(write):
        memory = {
            "enabled": True,
            "scope": {"read": write, "write": write},
            "tools": ["add_memory"],
        }
        return {"harness": {"memory": memory}}

    def add_in_a_new_turn():
        s = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
        t = api.ok("POST", f"{A}/-/sessions/{s}/turns", {}, expect=201)["id"]
        body = {"summary": "shared", "scope": "agent", "caller": {"role": "agent"}}
        return api.call("POST", f"{A}/-/sessions/{s}/turns/{t}/tools/add_memory", body)

    api.ok("PUT", A, manifest(["session", "agent"]), expect=201)
    assert add_in_a_new_turn()[0] == 200
    api.ok("DELETE", A, expect=204)
    api.ok("PUT", A, manifest(["session"]), expect=201)
    status, body = add_in_a_new_turn()
    assert (status, body["error"]["code"]) == (403, "memory.forbidden")


def test_a_manifest_no_store_item_holds_is_a_413_and_saves_nothing(api):
    big = {"harness": {"memory": {"instructions": "x"}, "notes": "y" * (200 * 1024)}}
    status, body = api.call("PUT", A, big)
    assert (status, body["error"]["code"]) == (413, "manifest_too_large")
    assert api.call("GET", A)[0] == 404


def test_a_manifest_version_past_any_number_is_a_400(api):
    api.ok("PUT", A, {"harness": {}}, expect=201)
    assert api.call("GET", f"{A}/-/manifest-versions/{10**20}")[0] == 400


def test_records_of_an_agent_that_is_gone_are_404(api, services, store):
    api.ok("PUT", A, {"harness": {}}, expect=201)
    api.ok("DELETE", A, expect=204)
    for path in ("records", "records/rec_01ABCDEFGHJKMNPQRSTVWXYZ00"):
        status, body = api.call("GET", f"{A}/-/{path}")
        assert (status, body["error"]["code"]) == (404, "agent_not_found")


def test_a_fork_that_fails_part_way_leaves_no_copy_and_can_be_asked_again(api, services):
    from agent_memory.domain.kernel.errors import StorageUnavailable

    api.ok("PUT", A, {"harness": {}}, expect=201)
    for i in range(30):  # copied 24 a batch: the second batch fails
        api.ok("PUT", f"{A}/-/memories/notes/n{i}.md", {"content": f"note {i}\n"}, expect=201)
    files, write, batches = services.files, services.files._write, []

    def failing_second_batch(tenant, agent_id, batch):
        batches.append(batch)
        if len(batches) == 2:
            raise StorageUnavailable("DynamoDB did not complete the request; try again")
        return write(tenant, agent_id, batch)

    files._write = failing_second_batch
    try:
        assert api.call("POST", f"{A}/-/fork", {"id": "teams/web/copy"})[0] == 503
    finally:
        files._write = write
    assert api.call("GET", "/v1/agents/teams/web/copy")[0] == 404
    api.ok("POST", f"{A}/-/fork", {"id": "teams/web/copy"}, expect=201)
    copied = api.ok("GET", "/v1/agents/teams/web/copy/-/memories", limit=100)["memories"]
    assert len(copied) == 30
