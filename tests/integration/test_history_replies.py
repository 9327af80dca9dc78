"""A history search is mostly asked for what the user said; the assistant's replies restate and
elaborate it. So an assistant's event scores a fifth less (ranking.weigh_replies), unless the
query asks about what the assistant itself said (speaker.asks_for_replies): then the words
decide alone, as they do between two people talking."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/trips/bot"
AGENT = {"role": "agent"}
# Said by the user, in a turn of its own.
SAID = (
    "Last spring I walked the whole hiking trail in Moncayo with my cousin Ana and her two dogs, "
    "and the views from the top were great"
)
# Said in another turn, after an unrelated question: shorter, so by words alone it leads.
REPLY = "The hiking trail in Moncayo is lovely."
QUERY = "hiking trail in Moncayo"
FILLER = [
    "We had lunch at noon",
    "My brother bought a new car",
    "The meeting moved to Thursday",
    "I baked bread with rye flour",
    "Our cat sleeps on the sofa",
    "The printer ran out of toner",
    "I started reading a novel about sailors",
    "The garden needs more water in July",
] * 3


def load(api, replier):
    manifest = {
        "harness": {
            "memory": {"enabled": True, "search": {"mode": "lexical"}},
            "history": {"index": "messages", "search": "agent"},
        }
    }
    api.ok("PUT", A, manifest, expect=201)
    api.ok("POST", f"{A}/-/sessions", {"id": "past"}, expect=201)
    # Other days' words between them (so the query's words are rare enough to weigh, BM25's
    # idf, and neither is among the words said just before the other).
    turns = [
        [{"role": "user", "text": SAID}],
        *([{"role": "user", "text": text}] for text in FILLER),
        [{"role": "user", "text": "Where should I walk this weekend?"}],
        [{"role": replier, "text": REPLY}],
    ]
    for events in turns:
        turn = api.ok("POST", f"{A}/-/sessions/past/turns", {}, expect=201)["id"]
        path = f"{A}/-/sessions/past/turns/{turn}"
        api.ok("POST", f"{path}/events", {"events": events})
        api.ok("POST", f"{path}/commit")


def ask(api, query):
    sid = api.ok("POST", f"{A}/-/sessions", None, expect=201)["id"]
    turn = api.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
    status, body = api.call(
        "POST",
        f"{A}/-/sessions/{sid}/turns/{turn}/tools/search_history",
        {"query": query, "caller": AGENT, "limit": 5},
    )
    assert status == 200, body
    return [e["text"].splitlines()[-1] for e in body["output"]["events"]][:2]


def managed(api, query):
    """The two management searches over the agent's history: its own route and the one over
    everything the agent knows."""
    found = api.ok("GET", f"{A}/-/history", query=query)
    everything = api.ok("GET", f"{A}/-/search", query=query, types="history")
    return (
        [e["text"].splitlines()[-1] for e in found["events"]][:2],
        [h["text"].splitlines()[-1] for h in everything["hits"]][:2],
    )


def test_between_two_people_the_words_decide(api, embedded):
    load(api, "user")
    assert ask(api, QUERY) == [REPLY, SAID]


def test_what_the_user_said_ranks_above_a_reply_that_holds_the_same_words(api, embedded):
    load(api, "assistant")

    assert ask(api, QUERY) == [SAID, REPLY]
    assert managed(api, QUERY) == ([SAID, REPLY], [SAID, REPLY])


@pytest.mark.parametrize(
    "query",
    [
        "the hiking trail in Moncayo you recommended",
        "which hiking trail in Moncayo did you suggest?",
        "in our previous chat: the hiking trail in Moncayo",
    ],
)
def test_a_query_about_what_the_assistant_said_lets_the_words_decide(api, embedded, query):
    load(api, "assistant")

    assert ask(api, query) == [REPLY, SAID]
    assert managed(api, query) == ([REPLY, SAID], [REPLY, SAID])
