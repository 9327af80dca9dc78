"""`asOf=`: what the agent knew at a past instant, from the versions kept, on both stores."""

import time
from datetime import UTC, datetime, timedelta

import pytest
from test_api_record_expiry import iso
from test_api_records import A, Turn, manifest, session

pytestmark = pytest.mark.integration


def instant():
    """Now, kept apart from the changes before and after it by a few milliseconds."""
    time.sleep(0.005)
    now = datetime.now(UTC)
    time.sleep(0.005)
    return now


def listed(api, at, **query):
    return [
        (r["id"], r["status"])
        for r in api.ok("GET", f"{A}/-/records", asOf=iso(at), **query)["records"]
    ]


@pytest.fixture
def history(api):
    """A written at t1, replaced by B at t2, B deleted and C written at t3, C expired by an app
    at t4 (its expiry set to t3)."""
    api.ok("PUT", A, manifest(), expect=201)
    s = session(api)
    at = {"t0": instant()}
    turn = Turn(api, s)
    a = turn.add("Releases ship on Fridays", scope="agent")["id"]
    turn.commit()
    at["t1"] = instant()
    turn = Turn(api, s)
    b = turn.add("Releases ship on Thursdays", scope="agent", replaces=a)["id"]
    turn.commit()
    at["t2"] = instant()
    api.ok("DELETE", f"{A}/-/records/{b}")
    turn = Turn(api, s)
    c = turn.add("Releases are paused in December", scope="agent")["id"]
    turn.commit()
    at["t3"] = instant()
    api.ok("PATCH", f"{A}/-/records/{c}", {"expiresAt": iso(at["t3"])})
    at["t4"] = instant()
    return api, at, {"a": a, "b": b, "c": c}


def test_a_listing_as_of_an_instant_shows_the_records_as_they_stood(history):
    api, at, ids = history
    a, b, c = ids["a"], ids["b"], ids["c"]
    # Before anything was written: nothing existed
    assert listed(api, at["t0"]) == []
    # A was the agent's whole memory at t1, though it is SUPERSEDED now
    assert listed(api, at["t1"]) == [(a, "ACTIVE")]
    # B had replaced it at t2
    assert listed(api, at["t2"]) == [(b, "ACTIVE")]
    assert listed(api, at["t2"], status="all") == [(b, "ACTIVE"), (a, "SUPERSEDED")]
    # At t3 B was deleted and C written, and C had no expiry yet
    assert listed(api, at["t3"]) == [(c, "ACTIVE")]
    assert listed(api, at["t3"], status="all") == [
        (c, "ACTIVE"),
        (b, "DELETED"),
        (a, "SUPERSEDED"),
    ]
    # At t4 C's expiry (t3) had been set: judged at t4, it had expired
    assert listed(api, at["t4"]) == []
    assert listed(api, at["t4"], status="EXPIRED") == [(c, "EXPIRED")]
    # Each as it stood: the version then, not the head now
    then = api.ok("GET", f"{A}/-/records", asOf=iso(at["t2"]), status="all")["records"]
    assert [(r["version"], r.get("replacedBy")) for r in then] == [(1, None), (2, b)]


def test_a_ranked_listing_as_of_an_instant_finds_what_was_known_then(history):
    api, at, ids = history
    found = api.ok("GET", f"{A}/-/records", query="when do releases ship", asOf=iso(at["t1"]))
    assert [r["id"] for r in found["records"]] == [ids["a"]]
    now = api.ok("GET", f"{A}/-/records", query="when do releases ship")["records"]
    assert ids["a"] not in [r["id"] for r in now]


def test_an_as_of_listing_pages_with_its_cursor(history):
    api, at, ids = history
    first = api.ok("GET", f"{A}/-/records", asOf=iso(at["t3"]), status="all", limit=2)
    assert [r["id"] for r in first["records"]] == [ids["c"], ids["b"]]
    rest = api.ok(
        "GET", f"{A}/-/records", asOf=iso(at["t3"]), status="all", limit=2, cursor=first["next"]
    )
    assert ([r["id"] for r in rest["records"]], rest["next"]) == ([ids["a"]], None)


def test_an_instant_later_than_now_reads_as_now(history):
    api, _, ids = history
    later = datetime.now(UTC) + timedelta(days=365)
    assert listed(api, later, status="all") == listed(api, datetime.now(UTC), status="all")
    assert [i for i, _ in listed(api, later, status="all")] == [ids["c"], ids["b"], ids["a"]]


@pytest.mark.parametrize(
    "value", ["yesterday", "2026-01-31T12:00:00", "2026-02-30T00:00:00Z", "1767225600"]
)
def test_a_bad_as_of_is_a_400(history, value):
    api, _, _ = history
    status, body = api.call("GET", f"{A}/-/records", asOf=value)
    assert (status, body["error"]["code"]) == (400, "invalid_as_of"), body


M = A + "/-/memories"


def memory_tool(api, s, **command):
    turn = api.ok("POST", f"{A}/-/sessions/{s}/turns", expect=201)["id"]
    path = f"{A}/-/sessions/{s}/turns/{turn}"
    status, body = api.call(
        "POST", f"{path}/tools/memory", {**command, "caller": {"role": "agent"}}
    )
    assert status == 200, body
    api.ok("POST", f"{path}/commit")


def test_file_memories_as_of_an_instant_are_read_and_listed_as_they_stood(api):
    api.ok("PUT", A, {"harness": {"memory": {"access": "read_write"}}}, expect=201)
    t0 = instant()
    api.ok("PUT", f"{M}/a.md", {"content": "one"}, expect=201)
    t1 = instant()
    api.ok("PUT", f"{M}/a.md", {"content": "two"})
    api.ok("PUT", f"{M}/b.md", {"content": "bee"}, expect=201)
    t2 = instant()
    api.ok("DELETE", f"{M}/b.md", expect=204)
    s = session(api)
    memory_tool(api, s, command="rename", old_path="/memories/a.md", new_path="/memories/c.md")
    t3 = instant()

    def paths(at, **query):
        found = api.ok("GET", M, asOf=iso(at), **query)["memories"]
        return [(m["path"], m["version"]) for m in found]

    def content(at, path):
        status, body = api.call("GET", f"{M}/{path}", asOf=iso(at))
        return body["content"] if status == 200 else (status, body["error"]["code"])

    assert paths(t0) == []
    assert content(t0, "a.md") == (404, "memory_not_found")
    assert paths(t1) == [("/memories/a.md", 1)]
    assert content(t1, "a.md") == "one"
    assert paths(t2) == [("/memories/a.md", 2), ("/memories/b.md", 1)]
    assert content(t2, "a.md") == "two"
    # Deleted and renamed away since: at t3 only the renamed memory
    assert paths(t3) == [("/memories/c.md", 3)]
    assert content(t3, "a.md") == (404, "memory_not_found")
    assert content(t3, "c.md") == "two"
    # Today's listing, a prefix and a page, and a ranking by words, all as of t2
    assert paths(t2, pathPrefix="/memories/b.md") == [("/memories/b.md", 1)]
    first = api.ok("GET", M, asOf=iso(t2), limit=1)
    assert first["next"] and [m["path"] for m in first["memories"]] == ["/memories/a.md"]
    rest = api.ok("GET", M, asOf=iso(t2), limit=1, cursor=first["next"])
    assert [m["path"] for m in rest["memories"]] == ["/memories/b.md"]
    assert paths(t2, query="bee") == [("/memories/b.md", 1)]
    status, body = api.call("GET", M, asOf="last week")
    assert (status, body["error"]["code"]) == (400, "invalid_as_of")


def test_the_agents_manifest_as_of_an_instant_is_the_version_then(api):
    t0 = instant()
    api.ok("PUT", A, {"harness": {"memory": {"enabled": True}}}, expect=201)
    t1 = instant()
    api.ok("PUT", A, {"harness": {"memory": {"enabled": False}}})
    t2 = instant()

    def manifest_then(at):
        agent = api.ok("GET", A, asOf=iso(at))
        return agent["manifestVersion"], agent["manifest"]["harness"]["memory"]["enabled"]

    assert manifest_then(t1) == (1, True)
    assert manifest_then(t2) == (2, False)
    assert manifest_then(datetime.now(UTC) + timedelta(days=1)) == (2, False)
    status, body = api.call("GET", A, asOf=iso(t0))
    assert (status, body["error"]["code"]) == (404, "agent_not_found")
    status, body = api.call("GET", A, asOf="2026-13-01T00:00:00Z")
    assert (status, body["error"]["code"]) == (400, "invalid_as_of")


def test_the_agents_search_as_of_an_instant_finds_what_it_knew_then(history, embedded):
    # (The embedded shape: there the index is written with each commit.)
    api, at, ids = history

    def hits(when):
        found = api.ok("GET", f"{A}/-/search", query="releases ship", asOf=iso(when))
        return [(h["type"], h["id"], h["version"]) for h in found["hits"]]

    assert hits(at["t0"]) == []
    assert hits(at["t1"]) == [("record", ids["a"], 1)]
    assert hits(at["t2"]) == [("record", ids["b"], 1)]
    # Today: a superseded, b deleted, c expired (its expiry set to t3)
    now = api.ok("GET", f"{A}/-/search", query="releases ship")["hits"]
    assert [h for h in now if h["type"] == "record"] == []
    assert hits(at["t3"]) == [("record", ids["c"], 1)]
