"""A history search is mostly asked for what the user said; the assistant's replies restate and
elaborate it. So an assistant's event scores a fifth less (ranking.weigh_replies), unless the
query asks about what the assistant itself said (speaker.asks_for_replies): then the words
decide alone, as they do between two people talking."""

import pytest

from history_turns import ask, keep_turns

pytestmark = pytest.mark.integration

A = "/v1/agents/trips/bot"
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
    # Other days' words between them (so the query's words are rare enough to weigh, BM25's
    # idf, and neither is among the words said just before the other).
    keep_turns(
        api,
        A,
        [
            [{"role": "user", "text": SAID}],
            *([{"role": "user", "text": text}] for text in FILLER),
            [{"role": "user", "text": "Where should I walk this weekend?"}],
            [{"role": replier, "text": REPLY}],
        ],
    )


def first_two(api, query):
    return ask(api, A, query)[:2]


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
    assert first_two(api, QUERY) == [REPLY, SAID]


def test_what_the_user_said_ranks_above_a_reply_that_holds_the_same_words(api, embedded):
    load(api, "assistant")

    assert first_two(api, QUERY) == [SAID, REPLY]
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

    assert first_two(api, query) == [REPLY, SAID]
    assert managed(api, query) == ([REPLY, SAID], [REPLY, SAID])
