"""ranking.credit_answered: part of a reply's context score goes to the message it answers."""

import pytest

from agent_memory.domain.search.ranking import VECTOR_WEIGHT, Ranked, credit_answered

pytestmark = pytest.mark.unit


def words_only() -> list[Ranked]:
    # The reply scored 3.0, 1.0 of it its own words: 2.0 came from the message before it.
    return [
        Ranked("reply.1", 3.0, lexical=3.0, own=1.0),
        Ranked("other.1", 2.4, lexical=2.4, own=2.4),
        Ranked("said.1", 1.5, lexical=1.5, own=1.5),
    ]


def test_half_the_replys_context_score_goes_to_the_message_it_answers() -> None:
    ranked = credit_answered(words_only(), {"reply.1": "said.1"}, "lexical")

    assert [(r.id, r.score) for r in ranked] == [
        ("said.1", pytest.approx(2.5)),  # 1.5 + half of 2.0
        ("other.1", 2.4),
        ("reply.1", pytest.approx(2.0)),
    ]


def test_in_hybrid_the_credit_is_scaled_as_words_are_fused() -> None:
    ranked = [
        Ranked("reply.1", 0.9, lexical=4.0, own=2.0, cosine=0.7),
        Ranked("said.1", 0.8, lexical=2.0, own=2.0, cosine=0.6),
    ]
    moved = (1 - VECTOR_WEIGHT) * 0.5 * 2.0 / 4.0  # the words' share of a fused score

    out = {r.id: r.score for r in credit_answered(ranked, {"reply.1": "said.1"}, "hybrid")}

    assert out == {"reply.1": pytest.approx(0.9 - moved), "said.1": pytest.approx(0.8 + moved)}


def test_nothing_moves_without_a_pair_words_or_context() -> None:
    ranked = words_only()
    # Meaning alone has no words to move; no pair, nothing to give.
    assert credit_answered(ranked, {"reply.1": "said.1"}, "vector") is ranked
    assert credit_answered(ranked, {}, "lexical") is ranked
    # The message it answers was not found: the reply keeps its score.
    assert credit_answered(ranked, {"reply.1": "gone.1"}, "lexical") is ranked
    # A reply whose own words tell nothing of its context (own unknown) gives nothing.
    unknown = [Ranked("reply.1", 3.0, lexical=3.0), Ranked("said.1", 1.5, lexical=1.5)]
    assert credit_answered(unknown, {"reply.1": "said.1"}, "lexical") is unknown
