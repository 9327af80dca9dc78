"""GET /v1/agents/{id}/-/entities: the names an agent's records, file memories and history
mention, each with its count and the items that mention it (embedded shape; the cloud's links
are the same port's DynamoDB adapter, tests/contract/test_entity_links_contract.py)."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/friends/assistant"
AGENT = {"role": "agent"}


def seed(api):
    """Caroline and Melanie in a conversation, a record and a memory."""
    manifest = {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["agent"], "write": ["agent"]},
                "tools": ["add_memory"],
            },
            "history": {"index": "messages"},
        }
    }
    api.ok("PUT", A, manifest, expect=201)
    sid = api.ok("POST", f"{A}/-/sessions", {"id": "s1"}, expect=201)["id"]
    turn = api.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
    path = f"{A}/-/sessions/{sid}/turns/{turn}"
    said = [
        {
            "role": "user",
            "text": "I went to the LGBTQ support group.",
            "metadata": {"speaker": "Caroline"},
        },
        {
            "role": "user",
            "text": "So proud of you! I painted a lake.",
            "metadata": {"speaker": "Melanie"},
        },
    ]
    api.ok("POST", f"{path}/events", {"events": said})
    added = api.ok(
        "POST",
        f"{path}/tools/add_memory",
        {"summary": "Caroline's friend Melanie paints", "scope": "agent", "caller": AGENT},
    )["output"]
    api.ok("POST", f"{path}/commit")
    api.ok(
        "PUT",
        f"{A}/-/memories/people/caroline.md",
        {"content": "Caroline lives in Sweden.\n"},
        expect=201,
    )
    return sid, added


def test_entities_are_listed_with_counts_and_the_items_that_mention_them(api, embedded):
    # Given a conversation, a record and a memory naming Caroline (one by her speaker tag)
    sid, added = seed(api)

    # When the agent's entities are listed
    page = api.ok("GET", f"{A}/-/entities")

    # Then each is there once, in key order, with what mentions it
    keys = [e["key"] for e in page["entities"]]
    assert keys == ["caroline", "lgbtq", "melanie", "sweden"] and page["next"] is None
    caroline = page["entities"][0]
    assert caroline["count"] == 3
    types = {item["type"] for item in caroline["items"]}
    assert types == {"record", "memory", "history"}
    event = next(i for i in caroline["items"] if i["type"] == "history")
    assert (event["sessionId"], event["part"]) == (sid, 1) and event["eventId"]
    memory = next(i for i in caroline["items"] if i["type"] == "memory")
    assert memory["path"] == "/memories/people/caroline.md"
    record = next(i for i in caroline["items"] if i["type"] == "record")
    assert api.ok("GET", f"{A}/-/records/{record['id']}")["summary"].startswith("Caroline's")
    # The speaker of a message is an entity of it though its text never names her.
    melanie = next(e for e in page["entities"] if e["key"] == "melanie")
    assert {i["type"] for i in melanie["items"]} == {"record", "history"}


def test_a_query_narrows_and_a_cursor_pages(api, embedded):
    seed(api)

    found = api.ok("GET", f"{A}/-/entities", query="Caroline's", items=0)["entities"]
    assert [(e["key"], e["count"], e["items"]) for e in found] == [("caroline", 3, [])]
    assert api.ok("GET", f"{A}/-/entities", query="zz")["entities"] == []

    first = api.ok("GET", f"{A}/-/entities", limit=2)
    assert [e["key"] for e in first["entities"]] == ["caroline", "lgbtq"]
    rest = api.ok("GET", f"{A}/-/entities", limit=2, cursor=first["next"])
    assert [e["key"] for e in rest["entities"]] == ["melanie", "sweden"]
    assert rest["next"] is None


def test_what_is_deleted_no_longer_mentions(api, embedded):
    _, added = seed(api)
    record_id = next(
        i["id"]
        for i in api.ok("GET", f"{A}/-/entities", query="melanie")["entities"][0]["items"]
        if i["type"] == "record"
    )
    api.ok("DELETE", f"{A}/-/records/{record_id}")
    api.call("DELETE", f"{A}/-/memories/people/caroline.md")

    left = api.ok("GET", f"{A}/-/entities")["entities"]
    assert [(e["key"], e["count"]) for e in left] == [("caroline", 1), ("lgbtq", 1), ("melanie", 1)]


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ({"limit": 0}, None),
        ({"limit": 101}, None),
        ({"items": -1}, None),
        ({"items": 51}, None),
        ({"cursor": "not-a-cursor"}, "invalid_cursor"),
        ({"query": "x" * 257}, None),
        ({"query": "x" * 65}, "invalid_query"),
        ({"query": "c#"}, "invalid_query"),
    ],
)
def test_a_bad_listing_is_a_400_and_changes_nothing(api, embedded, query, code):
    seed(api)
    before = api.ok("GET", f"{A}/-/entities")

    status, body = api.call("GET", f"{A}/-/entities", **query)

    assert status == 400, body
    if code:
        assert body["error"]["code"] == code
    assert api.ok("GET", f"{A}/-/entities") == before


def test_a_missing_agent_and_another_tenant_are_404s(api, embedded):
    seed(api)
    status, body = api.call("GET", "/v1/agents/nobody/-/entities")
    assert (status, body["error"]["code"]) == (404, "agent_not_found")
    status, _ = api.as_tenant("globex").call("GET", f"{A}/-/entities")
    assert status == 404


def test_the_cloud_lists_what_its_stream_indexer_linked(tmp_path):
    # Given the cloud shape (API and indexer functions, DynamoDB under moto, OpenSearch engine)
    pytest.importorskip("osmem_server", reason="osmem-server (dev extra) is not installed")
    from cloud_shape import cloud_shape

    with cloud_shape(tmp_path) as cloud:
        api = cloud.api
        api.ok("PUT", A, {"harness": {"memory": {"enabled": True}}}, expect=201)
        api.ok(
            "PUT",
            f"{A}/-/memories/people/caroline.md",
            {"content": "Caroline's dog Oscar\n"},
            expect=201,
        )
        api.ok(
            "PUT",
            f"{A}/-/memories/people/oscar.md",
            {"content": "Oscar: a retriever\n"},
            expect=201,
        )
        # Before the stream is indexed nothing is linked (links are derived, like the index)
        assert api.ok("GET", f"{A}/-/entities")["entities"] == []

        # When the indexer takes the stream, and one memory is deleted and indexed again
        cloud.index_stream()
        linked = api.ok("GET", f"{A}/-/entities", items=10)["entities"]
        api.call("DELETE", f"{A}/-/memories/people/oscar.md")
        cloud.index_stream()
        after = api.ok("GET", f"{A}/-/entities", query="osc")["entities"]

    # Then the listing reads the links from the table, and the delete removed its mention
    assert [(e["key"], e["count"]) for e in linked] == [("caroline", 1), ("oscar", 2)]
    assert {i["path"] for i in linked[1]["items"]} == {
        "/memories/people/caroline.md",
        "/memories/people/oscar.md",
    }
    assert [(e["key"], e["count"]) for e in after] == [("oscar", 1)]
