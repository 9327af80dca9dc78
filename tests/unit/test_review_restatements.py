"""The review's own check of its model's decisions (domain/extraction/restatements.py), by
words alone and with the cosine of the summaries."""

from __future__ import annotations

import pytest

from agent_memory.domain.extraction.model import Candidate, Decision, Existing
from agent_memory.domain.extraction.restatements import no_referent, read, reconcile, restates

pytestmark = pytest.mark.unit


def cand(summary: str, correction: bool = False) -> Candidate:
    return Candidate(summary=summary, kind="fact", correction=correction)


def adds(n: int) -> list[Decision]:
    return [Decision(candidate=i, action="add") for i in range(n)]


@pytest.mark.parametrize(
    "summary, alone",
    [
        ("Melanie loves it", True),
        ("Gina is rooting for you", True),
        ("Melanie: It was so much fun", True),
        ("Melanie loves to", True),
        ("Melanie loves painting", False),
        ("Mel: They were stoked for the dinosaur exhibit", False),
        ("Melanie loves it when Melanie's kids laugh", False),
    ],
)
def test_a_fact_with_no_referent_is_told(summary, alone):
    assert no_referent(summary) is alone


def test_fewer_words_restate_more_words_say_more_and_numbers_names_and_denials_differ():
    assert restates(read("Jon likes green tea"), read("Jon likes green tea, hot"), None)
    assert not restates(read("Jon likes green tea"), read("Jon likes tea"), 0.887)
    assert not restates(read("Jon has two cats"), read("Jon has three cats"), 0.96)
    assert not restates(read("Caroline went in August"), read("Caroline went in June"), 0.97)
    assert not restates(read("Jon doesn't like tea"), read("Jon likes tea"), 0.93)
    assert not restates(read("Melanie's son likes art"), read("Melanie's daughter likes art"), 0.95)
    # Other words, near in meaning
    assert restates(read("Jon won't quit, even when it's hard"), read("Jon won't quit, ever"), 0.95)


def test_an_add_that_restates_a_memory_or_an_earlier_candidate_becomes_a_skip():
    # Given a memory, and two candidates: one restating it, the next restating the other twice
    shown = [Existing(id="r1", summary="Maria lives in Lisbon, Portugal", kind="fact")]
    candidates = [cand("Maria lives in Lisbon"), cand("Jon plays chess"), cand("Jon plays chess")]
    # When the model added all three
    out = reconcile(candidates, {0: shown, 1: shown, 2: shown}, adds(3), None)
    # Then the first and the last are skipped, the second added
    assert [(d.action, d.target) for d in out] == [("skip", "r1"), ("add", None), ("skip", None)]


def test_a_new_value_of_a_single_valued_attribute_replaces_and_a_second_sister_is_added():
    shown = [
        Existing(id="home", summary="Maria lives in Lisbon", kind="fact"),
        Existing(id="sister", summary="Maria's sister is Bea", kind="fact"),
    ]
    candidates = [cand("Maria moved to Porto"), cand("Maria's sister is Cleo")]
    out = reconcile(candidates, {0: shown, 1: shown}, adds(2), None)
    assert [(d.action, d.target) for d in out] == [("replace", "home"), ("add", None)]
    # Unless the speaker corrects it
    out = reconcile([cand("Maria's sister is Cleo", True)], {0: shown}, adds(1), None)
    assert [(d.action, d.target) for d in out] == [("replace", "sister")]


def test_the_cosine_comes_from_the_embed_function_and_the_models_other_decisions_stand():
    shown = [Existing(id="r1", summary="Jon won't quit, no matter what", kind="fact")]
    candidates = [cand("Jon won't quit, even when it's hard"), cand("Jon likes tea")]
    decisions = [Decision(candidate=0, action="add"), Decision(candidate=1, action="skip")]

    def embed(texts: list[str]) -> list[list[float]]:
        # The two "won't quit" summaries point the same way; the rest elsewhere.
        return [[1.0, 0.0] if "quit" in t else [0.0, 1.0] for t in texts]

    out = reconcile(candidates, {0: shown, 1: shown}, decisions, embed)
    assert [(d.action, d.target) for d in out] == [("skip", "r1"), ("skip", None)]
