"""Whose words a history query asks for (speaker.asks_for_replies), and the assistant's events
weighed lower when it asks for the user's (ranking.weigh_replies)."""

import pytest

from agent_memory.domain.search.ranking import REPLY_WEIGHT, Ranked, weigh_replies
from agent_memory.domain.search.speaker import asks_for_replies

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "query",
    [
        "the hiking trail you recommended in Moncayo",
        "What did you suggest for my sister's birthday?",
        "you once mentioned a dessert shop in Orlando",
        "You'd told me the ratio for tea tree oil",
        "In our previous chat, which companies were named?",
        "going back to the last conversation about dinosaurs",
        "the milkshake place we talked about last time",
        "WHAT DID YOU RECOMMEND?",
    ],
)
def test_a_query_about_what_the_assistant_said_asks_for_replies(query: str) -> None:
    assert asks_for_replies(query)


@pytest.mark.parametrize(
    "query",
    [
        # A request for something new is not a question about what was said.
        "Can you suggest some activities that I can do in the evening?",
        "Can you recommend some recent publications I might like?",
        "Could you list the books I read this year?",
        "What did I say about my sister?",
        "Who told me about the jewelry?",  # `told` without `you`
        "youth hostels we stayed in",  # `you` only inside a word
        "",
    ],
)
def test_a_query_about_the_user_does_not(query: str) -> None:
    assert not asks_for_replies(query)


def test_a_reply_scores_its_weight_and_the_list_is_ranked_again() -> None:
    ranked = [
        Ranked("reply.1", 1.0),
        Ranked("said.1", 0.9),
        Ranked("other.1", 0.85),
        Ranked("late.1", 0.7),
    ]
    out = weigh_replies(ranked, {"reply.1", "late.1"})

    assert [(r.id, r.score) for r in out] == [
        ("said.1", 0.9),
        ("other.1", 0.85),
        ("reply.1", pytest.approx(REPLY_WEIGHT)),
        ("late.1", pytest.approx(0.7 * REPLY_WEIGHT)),
    ]


def test_a_negative_score_is_lowered_too_and_no_reply_moves_nothing() -> None:
    ranked = [Ranked("said.1", 0.1), Ranked("reply.1", -0.5)]
    out = weigh_replies(ranked, {"reply.1"}, weight=0.8)
    assert [(r.id, r.score) for r in out] == [("said.1", 0.1), ("reply.1", pytest.approx(-0.6))]
    assert weigh_replies(ranked, set()) is ranked
