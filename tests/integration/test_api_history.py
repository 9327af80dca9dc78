"""Session history through the API (embedded index on SQLite)."""

import json

import pytest

from agent_memory.domain.kernel.where import TurnRef

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
AGENT = {"role": "agent"}


def setup(api, index="messages_and_tools", memory=True):
    history = {"index": index} if index else {}
    api.ok("PUT", A, {"harness": {"memory": {"enabled": memory}, "history": history}}, expect=201)
    return api.ok("POST", f"{A}/-/sessions", expect=201)["id"]


class Turn:
    def __init__(self, api, session, **begin):
        self.api = api
        body = api.ok("POST", f"{A}/-/sessions/{session}/turns", begin, expect=201)
        self.id, self.sequence = body["id"], body["sequence"]
        self.path = f"{A}/-/sessions/{session}/turns/{self.id}"

    def say(self, *events):
        return self.api.ok("POST", f"{self.path}/events", {"events": list(events)})

    def search(self, **args):
        return self.api.ok("POST", f"{self.path}/tools/search_history", {**args, "caller": AGENT})[
            "output"
        ]["events"]

    def commit(self):
        return self.api.ok("POST", f"{self.path}/commit")

    def rollback(self):
        return self.api.ok("POST", f"{self.path}/rollback")


def user(text, **more):
    return {"role": "user", "text": text, **more}


def test_only_committed_turns_are_searched(api, embedded):
    s = setup(api)
    t1 = Turn(api, s)
    t1.say(
        user("We agreed the tag format is vX.Y.Z with a leading v"),
        {"role": "assistant", "text": "Noted: tags look like v1.2.3"},
    )
    t1.commit()
    t2 = Turn(api, s)
    t2.say(user("the release codename is pineapple"))
    t2.rollback()
    t3 = Turn(api, s)
    t3.say(user("which tag format did we agree?"))  # the current turn is never searched
    found = t3.search(query="which tag format did we agree", limit=5)
    assert found[0]["turn"] == 1
    assert found[0]["text"].startswith("turn 1, user\nWe agreed the tag format")
    assert (found[0]["part"], found[0]["parts"]) == (1, 1)
    assert all(e["turn"] == 1 for e in found)
    assert t3.search(query="release codename pineapple") == [] or all(
        "pineapple" not in e["text"] for e in t3.search(query="release codename pineapple")
    )


@pytest.mark.parametrize(
    ("index", "memory", "kept_roles"),
    [
        ("messages", True, {"user", "assistant"}),
        ("messages_and_tools", True, {"user", "assistant", "tool_result", "error"}),
        # Without an index, only post-turn extraction needs the messages: kept for it alone
        # (search_history is not offered), and nothing at all when memory is off.
        (None, True, {"user", "assistant"}),
        (None, False, set()),
    ],
)
def test_what_is_kept_follows_the_index_setting(api, embedded, index, memory, kept_roles):
    s = setup(api, index, memory)
    t = Turn(api, s)
    out = t.say(
        user("deploy the app"),
        {"role": "assistant", "text": "deploying", "tool_calls": [{"name": "deploy"}]},
        {
            "role": "tool_result",
            "text": "deployed build 42",
            "tool_name": "deploy",
            "call_id": "c1",
        },
        {"role": "error", "text": "smoke test timeout", "tool_name": "smoke", "call_id": "c2"},
        # The agent's own retrievals and skill loads are never kept.
        {"role": "assistant", "text": "", "tool_calls": [{"name": "search_memory"}]},
        {"role": "tool_result", "text": "old memory", "tool_name": "search_memory"},
        {"role": "tool_result", "text": "skill body", "tool_name": "load_skill"},
    )
    assert out["kept"] == len(kept_roles)
    t.commit()
    page = api.ok("GET", f"{A}/-/sessions/{s}/history")["events"]
    assert {e["role"] for e in page} == kept_roles
    assert "old memory" not in json.dumps(page)


def test_search_history_is_not_offered_without_an_index(api, embedded):
    s = setup(api, None)
    status, body = api.call(
        "POST", f"{Turn(api, s).path}/tools/search_history", {"query": "x", "caller": AGENT}
    )
    assert (status, body["error"]["code"]) == (403, "tool_not_offered")


def test_a_tool_result_names_its_call_and_execution(api, embedded):
    s = setup(api)
    t = Turn(api, s)
    t.say(
        {
            "role": "tool_result",
            "text": "the build number is 4242",
            "tool_name": "ci",
            "call_id": "call-7",
            "execution_id": "exe-9",
            "sequence": 3,
        }
    )
    t.commit()
    hit = Turn(api, s).search(query="build number")[0]
    assert (hit["call"], hit["execution"], hit["sequence"]) == ("call-7", "exe-9", 3)
    assert hit["text"].startswith("turn 1, tool result of ci\n")


def test_long_events_are_kept_in_parts_and_read_whole_by_id(api, embedded):
    s = setup(api)
    t = Turn(api, s)
    words = [f"w{i}" for i in range(450)] + ["kubernetes", "upgrade", "window"]
    t.say(user(" ".join(words)))
    t.commit()
    reader = Turn(api, s)
    hit = reader.search(query="kubernetes upgrade window")[0]
    assert hit["parts"] == 3 and hit["part"] == 3
    whole = reader.search(ids=[hit["id"]])
    assert whole[0]["text"].endswith("kubernetes upgrade window")
    assert whole[0]["parts"] == 3


def test_preview_history_is_searched_only_by_preview_turns(api, embedded):
    s = setup(api)
    p = Turn(api, s, preview=True)
    p.say(user("draft plan: migrate to postgres"))
    p.commit()
    assert Turn(api, s).search(query="migrate postgres") == []
    assert Turn(api, s, preview=True).search(query="migrate postgres")[0]["turn"] == 1


def test_a_replay_searches_what_its_original_saw(api, embedded):
    s = setup(api)
    t1 = Turn(api, s)
    t1.say(user("first decision: use blue green"))
    t1.commit()
    t2 = Turn(api, s)
    t2.say(user("ask: what did we decide?"))
    t2.commit()
    t3 = Turn(api, s)
    t3.say(user("second decision: use canary"))
    t3.commit()
    replay = Turn(api, s, replay_of=t2.id)
    assert {e["turn"] for e in replay.search(query="decision", limit=10)} == {1}


def test_each_search_is_an_execution_with_embedding_usage(api, embedded):
    s = setup(api)
    t = Turn(api, s)
    t.say(user("the on-call rotation is weekly"))
    t.commit()
    reader = Turn(api, s)
    reader.search(query="on-call rotation")
    detail = api.ok("GET", reader.path)
    run = [e for e in detail["executions"] if e["tool"] == "search_history"][0]
    assert run["retrieved"] is True
    assert run["usage"][0]["purpose"] == "embed"


def test_appends_are_idempotent_and_refused_after_the_turn_ends(api, embedded):
    s = setup(api)
    t = Turn(api, s)
    first = t.say(user("hello", sequence=1))
    again = t.say(user("hello", sequence=1))
    assert first["ids"] == again["ids"]
    t.commit()
    assert len(api.ok("GET", f"{A}/-/sessions/{s}/history")["events"]) == 1
    status, body = api.call("POST", f"{t.path}/events", {"events": [user("late")]})
    assert (status, body["error"]["code"]) == (409, "turn_closed")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"events": []},
        {"events": [{"role": "system", "text": "x"}]},
        {"events": [{"role": "user", "text": "x", "extra": 1}]},
        {"events": "nope"},
    ],
)
def test_bad_appends_are_400_and_keep_nothing(api, embedded, body):
    s = setup(api)
    t = Turn(api, s)
    status, payload = api.call("POST", f"{t.path}/events", body)
    assert (status, payload["error"]["code"]) == (400, "invalid_events")
    t.commit()
    assert api.ok("GET", f"{A}/-/sessions/{s}/history")["events"] == []


def test_history_pages_by_turn_range_and_role_and_exports_jsonl(api, embedded):
    s = setup(api)
    for n in range(4):
        t = Turn(api, s)
        t.say(user(f"question {n}"), {"role": "assistant", "text": f"answer {n}"})
        t.commit() if n != 2 else t.rollback()
    first = api.ok("GET", f"{A}/-/sessions/{s}/history", limit=2)
    second = api.ok("GET", f"{A}/-/sessions/{s}/history", limit=10, cursor=first["next"])
    texts = [e["text"] for e in first["events"] + second["events"]]
    assert texts == ["question 0", "answer 0", "question 1", "answer 1", "question 3", "answer 3"]
    users = api.ok("GET", f"{A}/-/sessions/{s}/history", role="user", fromTurn=2, toTurn=4)
    assert [e["text"] for e in users["events"]] == ["question 1", "question 3"]
    status, payload = api.call("GET", f"{A}/-/sessions/{s}/history", role="robot")
    assert (status, payload["error"]["code"]) == (400, "invalid_role")

    from apiclient import http_event

    raw = api.handler(http_event("GET", f"{A}/-/sessions/{s}/export"), None)
    assert raw["headers"]["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in raw["body"].splitlines()]
    assert [line["type"] for line in lines].count("turn") == 4
    assert [line["type"] for line in lines].count("event") == 8
    assert lines[0]["type"] == "turn" and lines[1]["text"] == "question 0"


def texts(api, session):
    return [e["text"] for e in api.ok("GET", f"{A}/-/sessions/{session}/history")["events"]]


def test_a_batch_sent_again_with_its_sequences_keeps_nothing_new(api):
    s = setup(api)
    t = Turn(api, s)
    first = t.say(user("ship on friday", sequence=1), user("tag it", sequence=2))
    assert t.say(user("ship on friday", sequence=1), user("tag it", sequence=2)) == first
    # Another event at a sequence already kept is a conflict, and changes nothing.
    status, body = api.call(
        "POST", f"{t.path}/events", {"events": [user("ship on monday", sequence=1)]}
    )
    assert (status, body["error"]["code"]) == (409, "event_conflict")
    status, body = api.call(
        "POST", f"{t.path}/events", {"events": [user("a", sequence=3), user("b", sequence=3)]}
    )
    assert (status, body["error"]["code"]) == (400, "invalid_events")
    t.commit()
    assert texts(api, s) == ["ship on friday", "tag it"]


def test_appends_at_once_keep_each_others_events(api, store, monkeypatch):
    # The second append counts the turn's sequences before the first one writes: both count
    # the same next sequence. The first's event is once silently dropped.
    s = setup(api)
    t = Turn(api, s)
    read = type(store).turn_events
    first_pending = [True]

    def the_other_append_lands_meanwhile(self, *args):
        events = read(self, *args)
        if first_pending and first_pending.pop():
            t.say({"role": "tool_result", "tool_name": "ci", "text": "build 42 passed"})
        return events

    monkeypatch.setattr(type(store), "turn_events", the_other_append_lands_meanwhile)
    kept = t.say({"role": "tool_result", "tool_name": "deploy", "text": "deployed to eu-west-1"})
    monkeypatch.setattr(type(store), "turn_events", read)
    assert kept["kept"] == 1
    t.commit()
    assert sorted(texts(api, s)) == ["build 42 passed", "deployed to eu-west-1"]


def test_an_append_that_loses_the_race_with_the_commit_keeps_nothing(
    api, services, store, monkeypatch
):
    s = setup(api)
    t = Turn(api, s)
    t.say(user("first message alpha"))
    read = type(store).turn_events
    commit_pending = [True]

    def the_commit_lands_meanwhile(self, tenant, agent_id, session_id, turn_id):
        events = read(self, tenant, agent_id, session_id, turn_id)
        if commit_pending and commit_pending.pop():
            services.sessions.commit(TurnRef(tenant, agent_id, session_id, turn_id))
        return events

    monkeypatch.setattr(type(store), "turn_events", the_commit_lands_meanwhile)
    status, body = api.call("POST", f"{t.path}/events", {"events": [user("late message zebra")]})
    monkeypatch.setattr(type(store), "turn_events", read)
    assert (status, body["error"]["code"], body["error"]["status"]) == (
        409,
        "turn_closed",
        "committed",
    )
    assert texts(api, s) == ["first message alpha"]


@pytest.mark.parametrize("bound", ["fromTurn", "toTurn"])
def test_a_turn_bound_no_store_holds_is_a_400(api, bound):
    s = setup(api)
    status, body = api.call("GET", f"{A}/-/sessions/{s}/history", **{bound: 10**20})
    assert status == 400, body


def test_a_replay_of_an_early_turn_finds_what_it_saw_past_the_later_turns(api, embedded):
    # 61 later turns match the query better; the replay of turn 2 may return turn 1 alone,
    # once found past the best candidates.
    s = setup(api, index="messages", memory=False)
    first = "after lunch and parking we agreed the release tag format is vX.Y.Z"
    ids = []
    for n in range(62):
        t = Turn(api, s)
        t.say(user(first if n == 0 else f"release tag format? release tag format {n}"))
        t.commit()
        ids.append(t.id)
    replay = Turn(api, s, replay_of=ids[1])
    assert [e["turn"] for e in replay.search(query="release tag format")] == [1]


def test_events_kept_only_for_extraction_are_not_read_by_id_once_history_is_indexed(api):
    # Kept for the post-turn review while history was not indexed: not searchable, not even by
    # the id the append returned, after the manifest starts indexing history.
    s = setup(api, None)
    t = Turn(api, s)
    (hidden,) = t.say(user("the vault code is 4242"))["ids"]
    t.commit()
    api.ok("PUT", A, {"harness": {"history": {"index": "messages"}}})
    assert Turn(api, s).search(ids=[hidden]) == []


def test_an_append_landing_while_the_commit_indexes_is_indexed_with_it(
    api, embedded, services, monkeypatch
):
    # The commit read the turn's events to index them; an append lands before it ends the turn.
    # The commit starts again, so the late event is found by search, not only listed.
    s = setup(api)
    t = Turn(api, s)
    t.say(user("first message alpha"))
    history = services.history
    docs_for_commit = history.docs_for_commit
    pending = [True]

    def an_append_lands_meanwhile(turn):
        docs = docs_for_commit(turn)
        if pending and pending.pop():
            t.say(user("late message zebra"))
        return docs

    monkeypatch.setattr(history, "docs_for_commit", an_append_lands_meanwhile)
    t.commit()
    monkeypatch.setattr(history, "docs_for_commit", docs_for_commit)
    found = Turn(api, s).search(query="late message zebra")
    assert found and "zebra" in found[0]["text"]
