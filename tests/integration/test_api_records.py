"""Record memory through the tools endpoint and the management API, on both stores."""

import threading

import pytest

from agent_memory.domain.kernel.where import TurnRef

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
AGENT = {"role": "agent"}
MEMORY = {
    "enabled": True,
    "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
    "labels": {"customer_id": {"number": 5, "description": "The customer."}},
    "pinned": {"max_tokens": 60},
    "tools": ["add_memory", "read_memory", "delete_memory"],
}


def manifest(**memory):
    return {"harness": {"memory": {**MEMORY, **memory}}}


class Turn:
    """One turn of a session, driven through the API."""

    def __init__(self, api, session, **begin):
        self.api, self.session = api, session
        self.id = api.ok("POST", f"{A}/-/sessions/{session}/turns", begin, expect=201)["id"]
        self.path = f"{A}/-/sessions/{session}/turns/{self.id}"

    def call(self, tool, caller=AGENT, **args):
        return self.api.call("POST", f"{self.path}/tools/{tool}", {**args, "caller": caller})

    def tool(self, tool, caller=AGENT, **args):
        status, body = self.call(tool, caller, **args)
        assert status == 200, (status, body)
        return body["output"]

    def add(self, summary, **args):
        return self.tool("add_memory", summary=summary, **args)["memories"][0]

    def search(self, **args):
        return self.tool("search_memory", **args)["records"]

    def commit(self):
        return self.api.ok("POST", f"{self.path}/commit")

    def rollback(self):
        return self.api.ok("POST", f"{self.path}/rollback")

    def detail(self):
        return self.api.ok("GET", self.path)


@pytest.fixture
def agent(api):
    api.ok("PUT", A, manifest(), expect=201)
    return api


def session(api):
    return api.ok("POST", f"{A}/-/sessions", expect=201)["id"]


def stored(api, **query):
    return api.ok("GET", f"{A}/-/records", **query)["records"]


def test_writes_are_visible_to_other_turns_only_after_commit(agent):
    s1, s2 = session(agent), session(agent)
    t1 = Turn(agent, s1)
    record = t1.add("Releases ship on Tuesdays", kind="fact", scope="agent")
    assert (record["version"], record["status"], record["scope"]) == (1, "ACTIVE", "agent")
    # The turn reads its own staged write at once; nobody else does.
    assert [r["id"] for r in t1.search(query="when do releases ship")] == [record["id"]]
    assert Turn(agent, s2).search(query="releases ship") == []
    assert stored(agent) == []

    t1.commit()

    other = Turn(agent, s2).search(query="releases ship")
    assert [r["id"] for r in other] == [record["id"]]
    assert other[0]["provenance"]["turnId"] == t1.id
    assert other[0]["provenance"]["sessionId"] == s1
    assert other[0]["provenance"]["manifestVersion"] == 1


def test_a_rolled_back_turn_leaves_no_record(agent):
    t = Turn(agent, session(agent))
    t.add("Temporary fact")
    t.rollback()
    assert stored(agent, status="all") == []
    assert Turn(agent, session(agent)).search() == []


def test_session_scope_stays_in_its_session(agent):
    s1, s2 = session(agent), session(agent)
    t = Turn(agent, s1)
    mine = t.add("Account 42 prefers email")
    assert (mine["scope"], mine["sessionId"]) == ("session", s1)
    t.commit()
    assert [r["id"] for r in Turn(agent, s1).search()] == [mine["id"]]
    assert Turn(agent, s2).search() == []


def test_replaces_supersedes_and_versions_record_it(agent):
    s = session(agent)
    t1 = Turn(agent, s)
    old = t1.add("Deploys happen on Fridays", scope="agent")
    t1.commit()
    t2 = Turn(agent, s)
    new = t2.add("Deploys happen on Thursdays", scope="agent", replaces=old["id"])
    # Within the turn the replaced record is already superseded.
    assert [r["id"] for r in t2.search(query="deploys")] == [new["id"]]
    t2.commit()

    superseded = agent.ok("GET", f"{A}/-/records/{old['id']}")
    assert (superseded["status"], superseded["replacedBy"], superseded["version"]) == (
        "SUPERSEDED",
        new["id"],
        2,
    )
    assert agent.ok("GET", f"{A}/-/records/{new['id']}")["replaces"] == old["id"]
    versions = agent.ok("GET", f"{A}/-/records/{old['id']}/versions")["versions"]
    assert [(v["record"]["version"], v["operation"]) for v in versions] == [
        (2, "supersede"),
        (1, "create"),
    ]
    assert versions[0]["changedBy"]["turnId"] == t2.id
    # read_memory reads any status.
    t3 = Turn(agent, s)
    assert t3.tool("read_memory", id=old["id"])["sources"][0]["status"] == "SUPERSEDED"
    assert [r["id"] for r in t3.search(query="deploys")] == [new["id"]]


def test_delete_removes_from_search_but_history_stays(agent):
    s = session(agent)
    t1 = Turn(agent, s)
    record = t1.add(
        "Customer c-9 is on the gold plan", scope="agent", labels={"customer_id": "c-9"}
    )
    t1.commit()
    t2 = Turn(agent, s)
    out = t2.tool("delete_memory", id=record["id"])
    assert out["memories"][0]["id"] == record["id"]
    assert out["memories"][0]["status"] == "DELETED"
    t2.commit()
    assert Turn(agent, s).search(query="gold plan") == []
    assert agent.ok("GET", f"{A}/-/records/{record['id']}")["status"] == "DELETED"
    assert len(agent.ok("GET", f"{A}/-/records/{record['id']}/versions")["versions"]) == 2


def test_search_filters_and_pages_newest_first(agent):
    s = session(agent)
    t = Turn(agent, s)
    ids = [
        t.add(
            f"note {i}",
            scope="agent",
            kind="event" if i % 2 else "fact",
            labels={"customer_id": f"c-{i % 3}"},
        )["id"]
        for i in range(7)
    ]
    t.commit()
    reader = Turn(agent, s)
    first = reader.tool("search_memory", limit=3)
    assert [r["id"] for r in first["records"]] == ids[::-1][:3]
    second = reader.tool("search_memory", limit=3, after=first["next"])
    third = reader.tool("search_memory", limit=3, after=second["next"])
    assert [r["id"] for r in second["records"] + third["records"]] == ids[::-1][3:]
    assert third["next"] is None
    assert {r["kind"] for r in reader.search(kind="event", limit=10)} == {"event"}
    assert [r["id"] for r in reader.search(labels={"customer_id": "c-1"}, limit=10)] == [
        ids[4],
        ids[1],
    ]
    assert [r["id"] for r in reader.search(ids=[ids[0], ids[5]])] == [ids[5], ids[0]]


def test_newer_records_win_ties(agent):
    t = Turn(agent, session(agent))
    older = t.add("Standup is at nine", scope="agent")
    newer = t.add("Standup is at nine", scope="agent")
    t.commit()
    ranked = Turn(agent, session(agent)).search(query="standup nine")
    assert [r["id"] for r in ranked] == [newer["id"], older["id"]]


REFUSALS = [
    # (manifest override, caller, tool, args, status, code)
    ({"tools": []}, AGENT, "add_memory", {"summary": "x"}, 403, "tool_not_offered"),
    ({"enabled": False}, AGENT, "search_memory", {}, 403, "tool_not_offered"),
    ({}, {"role": "helper"}, "add_memory", {"summary": "x"}, 403, "memory.forbidden"),
    ({}, {"role": "programmatic"}, "delete_memory", {"id": "rec_x"}, 403, "memory.forbidden"),
    ({"access": "read_only"}, AGENT, "add_memory", {"summary": "x"}, 403, "memory.forbidden"),
    (
        {"scope": {"read": ["session"], "write": ["session"]}},
        AGENT,
        "add_memory",
        {"summary": "x", "scope": "agent"},
        403,
        "memory.forbidden",
    ),
    ({}, AGENT, "add_memory", {"summary": "x", "kind": "rumour"}, 400, "memory.invalid_argument"),
    (
        {},
        AGENT,
        "add_memory",
        {"summary": "x", "labels": {"region": "eu"}},
        400,
        "memory.invalid_argument",
    ),
    ({}, AGENT, "add_memory", {"summary": "two\nlines"}, 400, "memory.invalid_argument"),
    ({}, AGENT, "add_memory", {"summary": "x" * 501}, 400, "memory.invalid_argument"),
    (
        {},
        AGENT,
        "add_memory",
        {"summary": "x", "content": "y" * (100 * 1024 + 1)},
        400,
        "memory.invalid_argument",
    ),
    ({}, AGENT, "add_memory", {"summary": "x", "replaces": "rec_missing"}, 404, "memory.not_found"),
    ({}, AGENT, "read_memory", {"id": "rec_missing"}, 404, "memory.not_found"),
    ({}, AGENT, "delete_memory", {"id": "rec_missing"}, 404, "memory.not_found"),
    ({}, AGENT, "add_memory", {"summary": "x", "bogus": 1}, 400, "memory.invalid_argument"),
    (
        {"pinned": None},
        AGENT,
        "add_memory",
        {"summary": "x", "pinned": True},
        403,
        "memory.forbidden",
    ),
    ({}, AGENT, "no_such_tool", {}, 404, "tool_not_found"),
    ({}, None, "search_memory", {}, 400, "invalid_caller"),
    ({}, {"role": "boss"}, "search_memory", {}, 400, "invalid_caller"),
]


@pytest.mark.parametrize(("override", "caller", "tool", "args", "status", "code"), REFUSALS)
def test_refused_calls_say_why_and_change_nothing(api, override, caller, tool, args, status, code):
    api.ok("PUT", A, manifest(**override), expect=201)
    t = Turn(api, session(api))
    body = dict(args)
    if caller is not None:
        body["caller"] = caller
    got, payload = api.call("POST", f"{t.path}/tools/{tool}", body)
    assert (got, payload["error"]["code"]) == (status, code), payload
    assert payload["error"]["message"]
    t.commit()
    assert stored(api, status="all") == []
    detail = t.detail()
    assert detail["memories"] == []
    if tool != "no_such_tool" and caller is not None and caller.get("role") != "boss":
        assert detail["executions"][-1]["error"]["code"] == code


@pytest.mark.parametrize(
    ("role", "named"),
    [
        ("helper", "a subagent helper"),
        ("programmatic", "a programmatic tool caller"),
        ("agent_as_tool", "an agent used as a tool"),
    ],
)
def test_a_refused_write_names_the_callers_role_as_a_sentence_would(api, role, named):
    # Given a turn, and a caller that may only read
    api.ok("PUT", A, manifest(), expect=201)
    t = Turn(api, session(api))
    # When it tries to write
    got, payload = api.call(
        "POST", f"{t.path}/tools/add_memory", {"summary": "x", "caller": {"role": role}}
    )
    # Then the refusal names its role with its article
    assert (got, payload["error"]["code"]) == (403, "memory.forbidden")
    assert payload["error"]["message"].endswith(
        f"only the agent itself changes memory; {named} may search and read it but never write it"
    ), payload
    t.commit()


def test_exactly_100_kib_of_content_is_accepted(agent):
    t = Turn(agent, session(agent))
    assert t.add("big", content="y" * (100 * 1024))["content"] == "y" * (100 * 1024)


def test_deleting_a_scope_the_agent_does_not_write_is_refused(agent):
    s = session(agent)
    t = Turn(agent, s)
    record = t.add("Shared fact", scope="agent")
    t.commit()
    agent.ok("PUT", A, manifest(scope={"read": ["session", "agent"], "write": ["session"]}))
    status, payload = Turn(agent, s).call("delete_memory", id=record["id"])
    assert (status, payload["error"]["code"]) == (403, "memory.forbidden")
    assert agent.ok("GET", f"{A}/-/records/{record['id']}")["status"] == "ACTIVE"


def test_an_ended_turn_takes_no_tool_calls(agent):
    t = Turn(agent, session(agent))
    t.commit()
    status, payload = t.call("add_memory", summary="late")
    assert (status, payload["error"]["code"]) == (409, "turn_closed")


def test_a_replayed_turn_applies_each_write_once(agent):
    s = session(agent)
    original = Turn(agent, s)
    first = original.tool(
        "add_memory",
        caller={"role": "agent", "execution": "ex-1"},
        summary="Use blue-green deploys",
        scope="agent",
    )["memories"][0]
    # A retried request of the same execution stages nothing new.
    again = original.tool(
        "add_memory",
        caller={"role": "agent", "execution": "ex-1"},
        summary="Use blue-green deploys",
        scope="agent",
    )["memories"][0]
    assert again["id"] == first["id"]
    original.commit()

    replay = Turn(agent, s, replay_of=original.id)
    replayed = replay.tool(
        "add_memory",
        caller={"role": "agent", "execution": "ex-1"},
        summary="Use blue-green deploys",
        scope="agent",
    )["memories"][0]
    assert replayed["id"] == first["id"]
    replay.commit()
    assert [r["id"] for r in stored(agent, status="all")] == [first["id"]]
    assert agent.ok("GET", f"{A}/-/records/{first['id']}")["version"] == 1


def test_preview_turns_never_touch_live_records(agent):
    s = session(agent)
    live = Turn(agent, s)
    fact = live.add("Invoices go out on the 1st", scope="agent")
    doomed = live.add("Old holiday policy", scope="agent")
    live.commit()

    preview = Turn(agent, s, preview=True)
    draft = preview.add("Invoices go out on the 2nd", scope="agent", replaces=fact["id"])
    gone = preview.tool("delete_memory", id=doomed["id"])["memories"][0]
    assert draft["preview"] is True
    assert (gone["preview"], gone["status"], gone["replaces"]) == (True, "DELETED", doomed["id"])
    preview.commit()

    # Live records are unchanged, and live turns see no preview record.
    assert agent.ok("GET", f"{A}/-/records/{fact['id']}")["status"] == "ACTIVE"
    assert agent.ok("GET", f"{A}/-/records/{doomed['id']}")["status"] == "ACTIVE"
    live2 = Turn(agent, s)
    assert {r["id"] for r in live2.search(limit=10)} == {fact["id"], doomed["id"]}
    status, _ = live2.call("read_memory", id=draft["id"])
    assert status == 404
    status, _ = live2.call("delete_memory", id=draft["id"])
    assert status == 404
    # Preview turns see every record except those a preview record replaces.
    seen = {r["id"] for r in Turn(agent, s, preview=True).search(limit=10)}
    assert seen == {draft["id"]}
    assert {m["id"] for m in preview.detail()["memories"]} == {draft["id"], gone["id"]}


def test_pinned_records_are_listed_in_the_instructions_and_the_budget_holds(agent):
    s = session(agent)
    t = Turn(agent, s)
    pin = t.add("Always answer in English", scope="agent", pinned=True)
    status, payload = t.call("add_memory", summary="A" * 200, scope="agent", pinned=True)
    assert (status, payload["error"]["code"]) == (409, "memory.pin_budget")
    assert "onsolidate" in payload["error"]["message"]
    t.commit()

    reader = Turn(agent, s)
    got = agent.ok("GET", f"{reader.path}/instructions")
    assert "never keep secrets" in got["instructions"]
    assert f"- Always answer in English (id: {pin['id']})" in got["instructions"]
    assert got["pinned"] == [{"id": pin["id"], "version": 1, "summary": pin["summary"]}]
    agent.ok("GET", f"{reader.path}/instructions")  # the same list is recorded once
    listed = [e for e in reader.detail()["executions"] if e["tool"] == "memory.pinned"]
    assert [e["output"]["records"] for e in listed] == [[{"id": pin["id"], "version": 1}]]


def test_a_pin_that_replaces_a_pin_counts_without_it(agent):
    # 60 tokens: two 40-character pins take 40; a third of 60 characters (25) does not fit,
    # but in place of one of them it does: that is how the agent is told to consolidate.
    t = Turn(agent, session(agent))
    first = t.add("a" * 40, scope="agent", pinned=True)
    second = t.add("b" * 40, scope="agent", pinned=True)
    t.commit()
    t = Turn(agent, session(agent))
    status, payload = t.call("add_memory", summary="c" * 60, scope="agent", pinned=True)
    assert (status, payload["error"]["code"]) == (409, "memory.pin_budget")
    merged = t.add("c" * 60, scope="agent", pinned=True, replaces=first["id"])
    t.commit()
    got = agent.ok("GET", f"{Turn(agent, session(agent)).path}/instructions")
    assert {p["id"] for p in got["pinned"]} == {second["id"], merged["id"]}


def test_pins_two_open_turns_made_cannot_both_commit_over_the_budget(agent):
    # Each 100-character pin takes 35 of the 60 tokens; each turn saw room for its own.
    first, second = Turn(agent, session(agent)), Turn(agent, session(agent))
    kept = first.add("x" * 100, scope="agent", pinned=True)
    second.add("y" * 100, scope="agent", pinned=True)
    first.commit()
    status, payload = agent.call("POST", f"{second.path}/commit")
    assert (status, payload["error"]["code"]) == (409, "memory.pin_budget")
    assert second.rollback()["status"] == "rolled_back"
    got = agent.ok("GET", f"{Turn(agent, session(agent)).path}/instructions")
    assert [p["id"] for p in got["pinned"]] == [kept["id"]]


def test_instructions_include_the_agents_memory_instructions(api):
    api.ok("PUT", A, manifest(instructions="Keep the team's release conventions."), expect=201)
    t = Turn(api, session(api))
    text = api.ok("GET", f"{t.path}/instructions")["instructions"]
    assert "Keep the team's release conventions." in text


def test_executions_are_recorded_with_retrieved_marks(agent):
    t = Turn(agent, session(agent))
    t.add("A fact", scope="agent")
    t.search(query="fact")
    t.search(query="nothing matches this")
    tools = [(e["tool"], e["retrieved"]) for e in t.detail()["executions"]]
    assert tools == [("add_memory", False), ("search_memory", True), ("search_memory", False)]


def test_management_api_lists_filters_and_deletes(agent, services):
    s = session(agent)
    t = Turn(agent, s)
    a = t.add("Customer c-1 renews in May", scope="agent", labels={"customer_id": "c-1"})
    b = t.add("Customer c-2 churned", scope="agent", kind="event", labels={"customer_id": "c-2"})
    t.commit()
    assert [r["id"] for r in stored(agent)] == [b["id"], a["id"]]
    assert [r["id"] for r in stored(agent, kind="event")] == [b["id"]]
    assert [r["id"] for r in stored(agent, labels='{"customer_id": "c-1"}')] == [a["id"]]
    assert [r["id"] for r in stored(agent, query="renews")] == [a["id"]]

    subscription = services.events.subscribe("acme", "teams/web/releases", None)
    deleted = agent.ok("DELETE", f"{A}/-/records/{a['id']}")
    assert deleted["status"] == "DELETED"
    assert [r["id"] for r in stored(agent)] == [b["id"]]
    assert Turn(agent, s).search(query="renews") == []
    _, event = subscription.queue.get_nowait()
    assert event.type == "agent.memory_updated"
    assert [c.model_dump(exclude_none=True) for c in event.changes] == [
        {"id": a["id"], "operation": "delete", "version": 2}
    ]
    status, payload = agent.call("DELETE", f"{A}/-/records/{a['id']}")
    assert (status, payload["error"]["code"]) == (409, "record_deleted")
    assert agent.call("GET", f"{A}/-/records/rec_nope")[0] == 404
    status, payload = agent.call("GET", f"{A}/-/records", labels="[1]")
    assert (status, payload["error"]["code"]) == (400, "invalid_labels")


def test_commit_publishes_memory_events(agent, services):
    s = session(agent)
    session_stream = services.events.subscribe("acme", "teams/web/releases", s)
    agent_stream = services.events.subscribe("acme", "teams/web/releases", None)
    t = Turn(agent, s)
    record = t.add("Fact", scope="agent")
    assert session_stream.queue.empty()
    t.commit()
    _, updated = session_stream.queue.get_nowait()
    _, agent_event = agent_stream.queue.get_nowait()
    assert updated.type == "memory.updated" and updated.effect_id
    assert [c.id for c in updated.changes] == [record["id"]]
    assert (agent_event.type, agent_event.session_id, agent_event.turn_id) == (
        "agent.memory_updated",
        s,
        t.id,
    )


def test_a_turn_writes_at_most_24_records(agent):
    t = Turn(agent, session(agent))
    for i in range(24):
        t.add(f"fact {i}", scope="agent")
    status, payload = t.call("add_memory", summary="one too many", scope="agent")
    assert (status, payload["error"]["code"]) == (409, "memory.turn_limit")
    t.commit()
    assert len(stored(agent)) == 24


def test_a_turn_stages_at_most_one_mebibyte(agent):
    t = Turn(agent, session(agent))
    for i in range(10):
        t.add(f"big {i}", scope="agent", content="x" * (100 * 1024))
    status, payload = t.call(
        "add_memory", summary="big 10", scope="agent", content="x" * (100 * 1024)
    )
    assert (status, payload["error"]["code"]) == (409, "memory.turn_limit")
    t.commit()
    assert len(stored(agent)) == 10


def test_label_names_in_a_listing_are_checked(agent):
    status, payload = agent.call("GET", f"{A}/-/records", labels='{"x\') OR 1=1": "v"}')
    assert (status, payload["error"]["code"]) == (400, "invalid_labels")


def test_a_versions_cursor_with_a_number_no_store_holds_is_a_400(agent):
    import base64
    import json

    t = Turn(agent, session(agent))
    record = t.add("a fact", scope="agent")
    t.commit()
    cursor = base64.urlsafe_b64encode(json.dumps({"before": 2**70}).encode()).decode()
    status, body = agent.call("GET", f"{A}/-/records/{record['id']}/versions", cursor=cursor)
    assert (status, body["error"]["code"]) == (400, "invalid_cursor")


def listed_in_pages(turn, size):
    """Every record search_memory lists without a query, page by page."""
    seen, page = [], turn.tool("search_memory", limit=size)
    seen += [r["id"] for r in page["records"]]
    while page["next"]:
        page = turn.tool("search_memory", limit=size, after=page["next"])
        seen += [r["id"] for r in page["records"]]
    return seen


def seeded(agent, count):
    t = Turn(agent, session(agent))
    ids = [t.add(f"fact number {i}", scope="agent")["id"] for i in range(count)]
    t.commit()
    return ids


def test_listing_pages_past_the_turns_own_deletes(agent):
    # The page's newest records are ones this turn deleted: the listing reads on, so the page
    # is full and says there is more, and every page together holds the other five.
    ids = seeded(agent, 6)
    t = Turn(agent, session(agent))
    t.tool("delete_memory", id=ids[-1])
    t.tool("delete_memory", id=ids[-2])
    assert len(t.tool("search_memory", limit=2)["records"]) == 2
    assert sorted(listed_in_pages(t, 2)) == sorted(ids[:-2])


def test_a_preview_turns_listing_pages_past_the_records_previews_hide(agent):
    ids = seeded(agent, 6)
    preview = Turn(agent, session(agent), preview=True)
    preview.tool("delete_memory", id=ids[-1])
    preview.tool("delete_memory", id=ids[-2])
    preview.commit()
    assert sorted(listed_in_pages(Turn(agent, session(agent), preview=True), 2)) == sorted(ids[:-2])
    assert sorted(listed_in_pages(Turn(agent, session(agent)), 2)) == sorted(ids)


def test_deletes_of_large_records_count_what_the_commit_writes_again(agent):
    # Each delete writes its record again (head and version): six of 90 KB take the commit
    # past what one DynamoDB transaction holds. The sixth is refused when asked, and the five
    # commit on either store, rather than all accepted and then no commit possible.
    t = Turn(agent, session(agent))
    ids = [t.add(f"large {i}", scope="agent", content="x" * 90_000)["id"] for i in range(6)]
    t.commit()
    t = Turn(agent, session(agent))
    for record_id in ids[:5]:
        t.tool("delete_memory", id=record_id)
    status, payload = t.call("delete_memory", id=ids[5])
    assert (status, payload["error"]["code"]) == (409, "memory.turn_limit")
    t.commit()
    assert [r["id"] for r in stored(agent)] == [ids[5]]


def test_a_search_that_returns_large_records_is_recorded_in_one_item(agent):
    # Six records of 90 KB: the output is 540 KB, past the 400 KB of a DynamoDB item. The
    # search answers whole; its execution records each content cut, on either store.
    t = Turn(agent, session(agent))
    for i in range(6):
        t.add(f"large fact {i}", scope="agent", content="x" * 90_000)
    t.commit()
    reader = Turn(agent, session(agent))
    found = reader.search(query="large fact", limit=10)
    assert len(found) == 6 and all(len(r["content"]) == 90_000 for r in found)
    (execution,) = [e for e in reader.detail()["executions"] if e["tool"] == "search_memory"]
    kept = execution["output"]["records"]
    assert len(kept) == 6 and all(r["content"].endswith("cut in this record)") for r in kept)


def test_a_write_that_loses_the_race_with_the_commit_says_so(agent, services, store, monkeypatch):
    # The commit lands between the tool's checks and its staging: the write is refused (409
    # turn_closed), not answered 200 for a record that never exists.
    s = session(agent)
    t = Turn(agent, s)
    stage = type(store).stage_effect
    commit_pending = [True]

    def the_commit_lands_meanwhile(self, *args):
        if commit_pending and commit_pending.pop():
            services.sessions.commit(TurnRef("acme", "teams/web/releases", s, t.id))
        return stage(self, *args)

    monkeypatch.setattr(type(store), "stage_effect", the_commit_lands_meanwhile)
    status, payload = t.call("add_memory", summary="Releases ship on Tuesdays", scope="agent")
    monkeypatch.setattr(type(store), "stage_effect", stage)
    assert (status, payload["error"]["code"], payload["error"]["status"]) == (
        409,
        "turn_closed",
        "committed",
    )
    assert stored(agent) == []


def test_a_write_staged_while_the_commit_works_is_committed_with_it(
    agent, services, store, monkeypatch
):
    # Staged after the commit read the turn's writes, before it ended the turn: the commit
    # starts again and applies it too.
    s = session(agent)
    t = Turn(agent, s)
    first = t.add("Releases ship on Tuesdays", scope="agent")
    read = type(store).staged_effects
    late, pending = [], [True]

    def a_write_lands_meanwhile(self, *args):
        effects = read(self, *args)
        if pending and pending.pop():  # the commit's first read
            late.append(t.add("Tags are vX.Y.Z", scope="agent"))
        return effects

    monkeypatch.setattr(type(store), "staged_effects", a_write_lands_meanwhile)
    t.commit()
    monkeypatch.setattr(type(store), "staged_effects", read)
    assert sorted(r["id"] for r in stored(agent)) == sorted([first["id"], late[0]["id"]])


def test_a_commit_whose_usage_is_not_recorded_still_answers_committed(
    agent, services, store, monkeypatch
):
    from agent_memory.domain.kernel.errors import PreconditionFailed

    t = Turn(agent, session(agent))
    record = t.add("Releases ship on Tuesdays", scope="agent")
    stream = services.events.subscribe("acme", "teams/web/releases", None)

    def conflict(self, *args):
        raise PreconditionFailed("a concurrent change touched the same item; try again")

    monkeypatch.setattr(type(store), "add_usage", conflict)
    assert t.commit()["status"] == "committed"  # was a 409 for a committed turn
    assert stream.queue.qsize() == 1  # and its event was published
    assert agent.ok("GET", f"{A}/-/records/{record['id']}")["status"] == "ACTIVE"


def test_a_recall_not_recorded_leaves_no_usage_naming_a_missing_execution(agent):
    t = Turn(agent, session(agent))
    t.add("Releases ship on Tuesdays", scope="agent")
    t.commit()
    reader = Turn(agent, session(agent))
    for context in ("when do releases ship?", "when do releases ship?", "zzzz qqqq"):
        agent.ok("POST", f"{reader.path}/recall", {"context": context})
    detail = reader.detail()
    executions = {e["id"] for e in detail["executions"]}
    named = [u["executionId"] for u in detail["usage"] if u.get("executionId")]
    assert set(named) <= executions  # (no embedding, so no usage, without an index)


def transactions_of(store, monkeypatch, call):
    """`call()`'s result, and how many SQLite transactions this thread began while it ran (not
    the background embedder's)."""
    begun, caller = [], threading.get_ident()
    transaction = type(store.db)._transaction

    def counted(self, conn):
        if threading.get_ident() == caller:
            begun.append(conn)
        return transaction(self, conn)

    monkeypatch.setattr(type(store.db), "_transaction", counted)
    try:
        return call(), len(begun)
    finally:
        monkeypatch.setattr(type(store.db), "_transaction", transaction)


def a_reader_of_one_record(agent, store):
    """A new turn of an agent whose memory holds one committed record (SQLite only: these tests
    count its transactions)."""
    if type(store).__name__ != "SqliteStore":
        pytest.skip("one transaction is SQLite's; DynamoDB writes each item on its own")
    t = Turn(agent, session(agent))
    t.add("Releases ship on Tuesdays", scope="agent")
    t.commit()
    return Turn(agent, session(agent))


def test_a_search_records_its_call_and_what_it_spent_in_one_write(agent, store, monkeypatch):
    # SQLite: the call's record and its usage are one transaction, so a search waits for the
    # file's write lock once for them, not twice (DynamoDB writes each item on its own). The
    # audit trail's entry is written after the answer is made, by the API (api/app.py).
    reader = a_reader_of_one_record(agent, store)
    found, begun = transactions_of(
        store, monkeypatch, lambda: reader.search(query="when do releases ship?")
    )
    assert found
    assert begun == 2  # the call's record with what it spent; the audit trail's entry
    detail = reader.detail()
    (execution,) = detail["executions"]
    assert execution["tool"] == "search_memory"
    spent = [u for u in detail["usage"] if u.get("executionId") == execution["id"]]
    assert [u["purpose"] for u in spent] == ["embed"]  # the query's embedding, in that write


def test_a_recall_records_its_call_and_what_it_spent_in_one_write(agent, store, monkeypatch):
    # As a search: a recall before each model call waits for the write lock once for both.
    reader = a_reader_of_one_record(agent, store)
    recall = f"{reader.path}/recall"
    answer, begun = transactions_of(
        store, monkeypatch, lambda: agent.ok("POST", recall, {"context": "when do releases ship?"})
    )
    assert answer["records"]
    assert begun == 2  # the recall's record with what it spent; the audit trail's entry
    detail = reader.detail()
    (execution,) = detail["executions"]
    spent = [u for u in detail["usage"] if u.get("executionId") == execution["id"]]
    assert [u["purpose"] for u in spent] == ["embed"]
    # The same versions again: nothing recorded, the query's embedding alone is written.
    again, begun = transactions_of(
        store, monkeypatch, lambda: agent.ok("POST", recall, {"context": "when do releases ship?"})
    )
    assert again["records"] == answer["records"] and begun == 2  # its usage; the audit entry
    assert [e["id"] for e in reader.detail()["executions"]] == [execution["id"]]


def test_an_id_no_record_can_have_names_none_on_either_store(agent):
    # `#` cannot be part of a DynamoDB key here: such an id was a 500 there, a 404 on SQLite.
    t = Turn(agent, session(agent))
    for tool in ("read_memory", "delete_memory"):
        status, payload = t.call(tool, id="rec_x#y")
        assert (status, payload["error"]["code"]) == (404, "memory.not_found")
    assert agent.ok("GET", f"{A}/-/records", ids="rec_x#y")["records"] == []
    assert agent.call("GET", f"{A}/-/records/rec_x%23y")[0] == 404


def test_a_dynamodb_turn_that_staged_before_the_counter_was_kept_still_commits(agent, store):
    if type(store).__name__ != "DynamoStore":
        pytest.skip("the staged counter lives on DynamoDB's turn item")
    s = session(agent)
    t = Turn(agent, s)
    first = t.add("Releases ship on Tuesdays", scope="agent")
    # As a turn begun before the deploy that added the counter: none on its item.
    item = store._items.turn.get(
        f"T#acme#A#teams/web/releases#S#{s}", f"TURN#{t.id}", consistent_read=True
    )
    item.update(actions=[store._items.turn.staged.remove()])
    second = t.add("Tags are vX.Y.Z", scope="agent")
    assert t.commit()["status"] == "committed"
    assert sorted(r["id"] for r in stored(agent)) == sorted([first["id"], second["id"]])
