"""Searching an agent's history across its sessions: search_history with
harness.history.search = agent, and the management API's GET /v1/agents/{id}/-/history."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/support/bot"
AGENT = {"role": "agent"}


def agent(api, reach="agent", index="messages"):
    history = {"index": index, "search": reach}
    api.ok("PUT", A, {"harness": {"memory": {"enabled": True}, "history": history}}, expect=201)


def session(api, sid=None):
    return api.ok("POST", f"{A}/-/sessions", {"id": sid} if sid else None, expect=201)["id"]


class Turn:
    def __init__(self, api, sid, **begin):
        self.api = api
        body = api.ok("POST", f"{A}/-/sessions/{sid}/turns", begin, expect=201)
        self.id = body["id"]
        self.path = f"{A}/-/sessions/{sid}/turns/{self.id}"

    def say(self, *texts, role="user", **more):
        events = [{"role": role, "text": t, **more} for t in texts]
        return self.api.ok("POST", f"{self.path}/events", {"events": events})

    def call(self, **args):
        return self.api.call("POST", f"{self.path}/tools/search_history", {**args, "caller": AGENT})

    def search(self, **args):
        status, body = self.call(**args)
        assert status == 200, body
        return body["output"]

    def commit(self):
        return self.api.ok("POST", f"{self.path}/commit")

    def rollback(self):
        return self.api.ok("POST", f"{self.path}/rollback")


def said(api, sid, *texts, **more):
    t = Turn(api, sid, **more)
    t.say(*texts)
    t.commit()


def test_search_history_reaches_every_session_of_the_agent_and_names_each_result_session(
    api, embedded
):
    agent(api)
    first, second = session(api, "monday"), session(api, "tuesday")
    said(api, first, "my dog is called Biscuit")
    said(api, second, "the invoice number is 88123")
    asking = Turn(api, session(api))
    found = asking.search(query="what is my dog called")["events"]
    assert found[0]["session"] == "monday"
    assert found[0]["text"].endswith("my dog is called Biscuit")
    invoice = asking.search(query="invoice number")["events"]
    assert invoice[0]["session"] == "tuesday"


def test_by_default_search_history_stays_within_its_session(api, embedded):
    agent(api, reach="session")
    said(api, session(api, "monday"), "my dog is called Biscuit")
    here = session(api)
    said(api, here, "the weather is fine")
    found = Turn(api, here).search(query="dog called Biscuit")["events"]
    assert all(e["session"] == here for e in found)
    assert not any("Biscuit" in e["text"] for e in found)


def test_rolled_back_and_preview_turns_of_other_sessions_stay_hidden(api, embedded):
    agent(api)
    other = session(api, "other")
    rolled = Turn(api, other)
    rolled.say("the vault code is 4417")
    rolled.rollback()
    said(api, other, "draft: the vault code may become 9921", preview=True)
    live = Turn(api, session(api))
    assert live.search(query="vault code")["events"] == []
    previewing = Turn(api, session(api), preview=True)
    hits = previewing.search(query="vault code")["events"]
    assert [h["text"].rsplit("\n", 1)[1] for h in hits] == ["draft: the vault code may become 9921"]


def test_the_parts_of_one_event_come_back_as_one_result(api, embedded):
    agent(api)
    sid = session(api)
    # Three parts of 200 words (overlapping by 40), the query's words in the first and last.
    words = ["kubernetes", "upgrade"] + [f"w{i}" for i in range(450)] + ["kubernetes", "upgrade"]
    said(api, sid, " ".join(words))
    found = Turn(api, session(api)).search(query="kubernetes upgrade", limit=10)["events"]
    assert len(found) == 1
    assert found[0]["parts"] == 3 and found[0]["part"] in (1, 3)


def test_results_page_past_the_first_with_next(api, embedded):
    agent(api)
    for day in range(4):
        sid = session(api, f"day{day}")
        for n in range(5):
            said(api, sid, f"standup note {day}-{n}: the deploy pipeline was green")
    asking = Turn(api, session(api))
    seen = []
    cursor = None
    for _ in range(10):
        args = {"query": "deploy pipeline standup", "limit": 6}
        if cursor:
            args["cursor"] = cursor
        page = asking.search(**args)
        seen += [(e["session"], e["id"]) for e in page["events"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert len(seen) == 20 and len(set(seen)) == 20  # every event once, across four pages
    # A cursor is bound to its query: another query with it is refused and changes nothing.
    first = asking.search(query="deploy pipeline standup", limit=6)
    status, body = asking.call(query="something else", cursor=first["next"])
    assert status == 400 and body["error"]["code"] == "memory.invalid_argument"
    status, body = asking.call(query="deploy", cursor="not-a-cursor")
    assert status == 400


def test_the_management_api_searches_the_agents_history(api, embedded):
    agent(api, reach="session")  # the app's search reaches every session whatever the agent's
    first, second = session(api, "s1"), session(api, "s2")
    said(api, first, "we moved to Lisbon in May")
    said(api, second, "the Lisbon office opens at nine")
    said(api, second, "unrelated chatter about lunch")
    said(api, second, "draft: Lisbon rent is 2000", preview=True)
    rolled = Turn(api, first)
    rolled.say("Lisbon secret plan")
    rolled.rollback()

    found = api.ok("GET", f"{A}/-/history", query="Lisbon")
    texts = [e["text"].rsplit("\n", 1)[1] for e in found["events"]]
    # (The chatter is found too, a little: it was said just after a message naming Lisbon.)
    assert sorted(texts[:2]) == ["the Lisbon office opens at nine", "we moved to Lisbon in May"]
    assert not {"draft: Lisbon rent is 2000", "Lisbon secret plan"} & set(texts)
    assert {e["session"] for e in found["events"][:2]} == {"s1", "s2"}
    assert found["next"] is None

    one = api.ok("GET", f"{A}/-/history", query="Lisbon", sessionId="s2")
    assert {e["session"] for e in one["events"]} == {"s2"}

    paged = api.ok("GET", f"{A}/-/history", query="Lisbon", limit=1)
    assert len(paged["events"]) == 1 and paged["next"]
    rest = api.ok("GET", f"{A}/-/history", query="Lisbon", limit=1, cursor=paged["next"])
    assert rest["events"][0]["id"] != paged["events"][0]["id"] or (
        rest["events"][0]["session"] != paged["events"][0]["session"]
    )


def test_sessions_whose_turns_share_an_id_each_keep_their_events_findable(api, embedded):
    """Given two sessions whose first turns the caller named `t1` (the README's quick start),
    when each says something and commits, then the agent's history search finds both
    events, each under its own id and session: the later one does not replace the earlier."""
    agent(api)
    said(api, session(api, "monday"), "we ship the web app on Tuesdays", id="t1")
    said(api, session(api, "thursday"), "the staging database moved to eu-west-1", id="t1")

    shipping = api.ok("GET", f"{A}/-/history", query="ship web app Tuesdays")["events"]
    staging = api.ok("GET", f"{A}/-/history", query="staging database")["events"]

    assert shipping[0]["session"] == "monday" and shipping[0]["turnId"] == "t1"
    assert staging[0]["session"] == "thursday" and staging[0]["turnId"] == "t1"
    assert shipping[0]["id"] != staging[0]["id"]


def test_the_management_search_keeps_a_time_window(api, embedded):
    agent(api)
    sid = session(api)
    t = Turn(api, sid)
    t.say("the boiler was serviced", time="2023-05-02T10:00:00Z")
    t.say("the boiler broke down", time="2023-08-20T10:00:00Z")
    t.commit()
    may = api.ok(
        "GET", f"{A}/-/history", query="boiler", fromTime="2023-05-01", toTime="2023-05-31"
    )
    assert [e["text"].rsplit("\n", 1)[1] for e in may["events"]] == ["the boiler was serviced"]
    assert may["events"][0]["time"].startswith("2023-05-02T10:00")
    later = api.ok("GET", f"{A}/-/history", query="boiler", fromTime="2023-06-01T00:00:00+00:00")
    assert [e["text"].rsplit("\n", 1)[1] for e in later["events"]] == ["the boiler broke down"]


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ({"query": "x", "fromTime": "last tuesday"}, 400, "invalid_time"),
        (
            {"query": "x", "fromTime": "2024-02-01", "toTime": "2024-01-01"},
            400,
            "invalid_time_range",
        ),
        ({"query": "x", "limit": 51}, 400, None),
        ({"query": "x", "cursor": "bm90IGEgY3Vyc29y"}, 400, "invalid_cursor"),
        ({}, 400, None),
        ({"query": "x", "sessionId": "nope"}, 404, "session_not_found"),
    ],
)
def test_a_bad_management_search_is_refused(api, embedded, query, status, code):
    agent(api)
    said(api, session(api), "something to find")
    got, body = api.call("GET", f"{A}/-/history", **query)
    assert got == status, body
    if code:
        assert body["error"]["code"] == code


def test_the_management_search_of_a_missing_agent_is_a_404(api, embedded):
    status, body = api.call("GET", "/v1/agents/nobody/-/history", query="x")
    assert (status, body["error"]["code"]) == (404, "agent_not_found")


def test_another_tenant_finds_nothing(api, embedded):
    agent(api)
    said(api, session(api), "tenant acme's secret roadmap")
    status, body = api.as_tenant("globex").call("GET", f"{A}/-/history", query="roadmap")
    assert status == 404


def test_an_agents_search_reaches_only_sessions_its_subject_started(api, embedded):
    # Two users run turns of the same agent with sessions:own tokens: the agent's search across
    # sessions never carries one user's history into the other's session.
    agent(api)
    alice = api.as_tenant("acme", "sessions:own", sub="alice")
    bob = api.as_tenant("acme", "sessions:own", sub="bob")
    alices, bobs = session(alice), session(bob)  # a sessions:own token names no session
    said(alice, alices, "my locker code is 3141")
    said(bob, bobs, "my locker is number 12")
    mine = Turn(alice, session(alice)).search(query="locker code")["events"]
    assert [e["session"] for e in mine] == [alices]
    theirs = Turn(bob, session(bob)).search(query="locker code")["events"]
    assert [e["session"] for e in theirs] == [bobs]


def test_a_token_of_its_own_sessions_cannot_search_every_session(api, embedded):
    agent(api)
    said(api, session(api, "s1"), "the launch date is June 3")
    own = api.as_tenant("acme", "sessions:own", sub="carol")
    status, body = own.call("GET", f"{A}/-/history", query="launch date")
    assert (status, body["error"]["code"]) == (403, "insufficient_scope")
    # Its one search keeps to what is agent-wide, and asking for history is refused.
    found = own.ok("GET", f"{A}/-/search", query="launch date")["hits"]
    assert all(h["type"] != "history" for h in found)
    status, body = own.call("GET", f"{A}/-/search", query="launch date", types="history")
    assert (status, body["error"]["code"]) == (403, "insufficient_scope")


def test_a_token_reading_every_session_reaches_sessions_anyone_started(api, embedded):
    # Started by another subject, or loaded by ingestion (no subject kept): a token that reads
    # every session has its agent's search reach them all.
    agent(api)
    bob = api.as_tenant("acme", "sessions:own", sub="bob")
    bobs = session(bob)
    said(bob, bobs, "the parking spot is B7")
    api.ok(
        "POST",
        "/v1/ingest",
        {
            "messages": [
                {"op": "session", "agent": "support/bot", "session": "imported"},
                {"op": "begin", "agent": "support/bot", "session": "imported", "turn": "t1"},
                {
                    "op": "events",
                    "agent": "support/bot",
                    "session": "imported",
                    "turn": "t1",
                    "events": [
                        {"role": "user", "text": "the parking gate code is 2468", "sequence": 1}
                    ],
                },
                {"op": "commit", "agent": "support/bot", "session": "imported", "turn": "t1"},
            ]
        },
    )
    found = Turn(api, session(api)).search(query="parking", limit=10)["events"]
    assert {e["session"] for e in found} == {bobs, "imported"}


def test_an_event_kept_before_ids_included_the_session_is_still_the_same_event(api, store):
    """Ids are made from the session, the turn and the sequence; a store written before that
    holds ids made from the turn and the sequence alone. Such an event, sent again, is the same
    event (not a 409), in its open turn and after it ended."""
    from agent_memory.domain.history.append import history_event
    from agent_memory.domain.history.models import EventIn, older_event_id

    agent(api)
    sid = session(api, "monday")
    t = Turn(api, sid, id="t1")
    # Given sequence 1 of turn t1 kept with the older form of its id
    legacy = older_event_id("t1", 1)
    turn = store.get_turn("acme", "support/bot", sid, "t1")
    sent = {"role": "user", "text": "my dog is called Biscuit", "sequence": 1}
    kept = history_event(turn, EventIn(**sent), 1, True).model_copy(update={"id": legacy})
    assert store.append_events("acme", "support/bot", sid, [kept])
    # When the harness sends it again while the turn is open, then it is that event, kept once
    again = api.ok("POST", f"{t.path}/events", {"events": [sent]})
    assert again["ids"] == [legacy] and again["kept"] == 1
    # While another event at that sequence is a conflict that changes nothing
    other = {**sent, "text": "my cat is called Biscuit"}
    status, body = api.call("POST", f"{t.path}/events", {"events": [other]})
    assert status == 409 and body["error"]["code"] == "event_conflict", body
    # And after the turn ended, sending it again is told apart from an append too late: the
    # turn is closed, and what was sent was kept before
    t.commit()
    status, body = api.call("POST", f"{t.path}/events", {"events": [sent]})
    assert status == 409 and body["error"]["alreadyKept"] is True, body
    status, body = api.call("POST", f"{t.path}/events", {"events": [other]})
    assert status == 409 and body["error"]["alreadyKept"] is False, body
    history = api.ok("GET", f"{A}/-/sessions/{sid}/history")
    assert [e["id"] for e in history["events"]] == [legacy]
