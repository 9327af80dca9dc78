"""An assistant's reply is indexed with the words of the user message it answers and often
repeats them, so by words alone it outranks the message that said them. When both are found,
half of what the reply's context scored goes to the user's message (ranking.credit_answered):
the message where the fact was said comes first, its reply right after."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/diary/bot"
AGENT = {"role": "agent"}
SAID = "My sister Ana gave me a silver necklace for my birthday"
REPLY = "A silver necklace from your sister Ana! Ana chose a silver necklace, how lovely."
QUERY = "silver necklace from my sister Ana"


def load(api, second_role):
    manifest = {
        "harness": {
            "memory": {"enabled": True, "search": {"mode": "lexical"}},
            "history": {"index": "messages", "search": "agent"},
        }
    }
    api.ok("PUT", A, manifest, expect=201)
    api.ok("POST", f"{A}/-/sessions", {"id": "past"}, expect=201)
    turn = api.ok("POST", f"{A}/-/sessions/past/turns", {}, expect=201)["id"]
    path = f"{A}/-/sessions/past/turns/{turn}"
    events = [{"role": "user", "text": SAID}, {"role": second_role, "text": REPLY}]
    api.ok("POST", f"{path}/events", {"events": events})
    api.ok("POST", f"{path}/commit")
    for text in ("I went hiking with my brother", "We had lunch at noon"):  # words' weights
        turn = api.ok("POST", f"{A}/-/sessions/past/turns", {}, expect=201)["id"]
        path = f"{A}/-/sessions/past/turns/{turn}"
        api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": text}]})
        api.ok("POST", f"{path}/commit")


def ask(api):
    sid = api.ok("POST", f"{A}/-/sessions", None, expect=201)["id"]
    turn = api.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
    status, body = api.call(
        "POST",
        f"{A}/-/sessions/{sid}/turns/{turn}/tools/search_history",
        {"query": QUERY, "caller": AGENT, "limit": 5},
    )
    assert status == 200, body
    return [e["text"].splitlines()[-1] for e in body["output"]["events"]]


def test_the_user_message_a_reply_answers_ranks_above_the_reply(api, embedded):
    load(api, "assistant")

    assert ask(api)[:2] == [SAID, REPLY]
    # The management searches rank the same way.
    found = api.ok("GET", f"{A}/-/history", query=QUERY)
    assert [e["text"].splitlines()[-1] for e in found["events"]][:2] == [SAID, REPLY]
    found = api.ok("GET", f"{A}/-/search", query=QUERY, types="history")
    assert [h["text"].splitlines()[-1] for h in found["hits"]][:2] == [SAID, REPLY]


def test_two_people_talking_keep_the_order_their_words_give(api, embedded):
    """Between two users (LoCoMo's speakers) the second message answers nobody's question for
    an assistant: nothing moves, and the one holding the query's words more often leads."""
    load(api, "user")

    assert ask(api)[:2] == [REPLY, SAID]
    found = api.ok("GET", f"{A}/-/search", query=QUERY, types="history")
    assert [h["text"].splitlines()[-1] for h in found["hits"]][:2] == [REPLY, SAID]
