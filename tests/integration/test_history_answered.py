"""An assistant's reply is indexed with the words of the user message it answers and often
repeats them, so by words alone it outranks the message that said them. When both are found,
half of what the reply's context scored goes to the user's message (ranking.credit_answered):
the message where the fact was said comes first, its reply right after."""

import pytest

from history_turns import ask, keep_turns

pytestmark = pytest.mark.integration

A = "/v1/agents/diary/bot"
SAID = "My sister Ana gave me a silver necklace for my birthday"
REPLY = "A silver necklace from your sister Ana! Ana chose a silver necklace, how lovely."
QUERY = "silver necklace from my sister Ana"


def load(api, second_role):
    keep_turns(
        api,
        A,
        [
            [{"role": "user", "text": SAID}, {"role": second_role, "text": REPLY}],
            # Other turns' words, for the words' weights.
            [{"role": "user", "text": "I went hiking with my brother"}],
            [{"role": "user", "text": "We had lunch at noon"}],
        ],
    )


def test_the_user_message_a_reply_answers_ranks_above_the_reply(api, embedded):
    load(api, "assistant")

    assert ask(api, A, QUERY)[:2] == [SAID, REPLY]
    # The management searches rank the same way.
    found = api.ok("GET", f"{A}/-/history", query=QUERY)
    assert [e["text"].splitlines()[-1] for e in found["events"]][:2] == [SAID, REPLY]
    found = api.ok("GET", f"{A}/-/search", query=QUERY, types="history")
    assert [h["text"].splitlines()[-1] for h in found["hits"]][:2] == [SAID, REPLY]


def test_two_people_talking_keep_the_order_their_words_give(api, embedded):
    """Between two users (LoCoMo's speakers) the second message answers nobody's question for
    an assistant: nothing moves, and the one holding the query's words more often leads."""
    load(api, "user")

    assert ask(api, A, QUERY)[:2] == [REPLY, SAID]
    found = api.ok("GET", f"{A}/-/search", query=QUERY, types="history")
    assert [h["text"].splitlines()[-1] for h in found["hits"]][:2] == [REPLY, SAID]
