"""A corpus for what every review must do with what it is told again: restatements (the same
words, or fewer) and paraphrases (other words, the same fact) are skipped, corrections replace
the memory they correct, look-alikes (the same shape, another fact) are kept beside it, facts
with no referent are never kept, and twins said in one review are kept once.

Each case: the memories that exist, what the speaker says (one message each), what a careful
model would propose from it (`proposed`, summaries), and what must come of the review:

    skip     nothing new is written and every memory stays
    replace  one record is written and it replaces the (first) memory
    add      new records are written and every memory stays
    drop     nothing is written
    one      one record is written of the several said (twins in one review)

Look-alikes decided here: "Jon likes green tea" after "Jon likes tea" is kept beside it (it
says more: green tea, perhaps only that); "Alice's sister is Cleo" after "Alice's sister is Bea"
is a second sister unless the speaker says it corrects (a sister is one of several; an age, a
home, an employer, a favourite, a spouse are one at a time); a number, a month or a name that
differs is never a restatement, however near in meaning ("has two cats" / "has three cats").

Read by tests/integration/test_review_corpus.py (the extraction service, each shape, with the
rule-based model and with one that adds whatever it proposes).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    group: str
    existing: tuple[str, ...]
    said: tuple[str, ...]
    proposed: tuple[str, ...]
    expect: str
    speaker: str = "Jon"


def _c(
    name: str,
    group: str,
    existing: tuple[str, ...],
    said: tuple[str, ...],
    proposed: tuple[str, ...],
    expect: str,
    speaker: str = "Jon",
) -> Case:
    return Case(name, group, existing, said, proposed, expect, speaker)


CASES: tuple[Case, ...] = (
    # -- restatements: the same words, or fewer -----------------------------------------------
    _c("tea again", "restatement", ("Jon likes green tea",), ("I like green tea.",),
       ("Jon likes green tea",), "skip"),
    _c("home, shorter", "restatement", ("Maria lives in Lisbon, Portugal",),
       ("I live in Lisbon.",), ("Maria lives in Lisbon",), "skip", "Maria"),
    _c("guitar, shorter", "restatement", ("Jon plays the guitar in a band",),
       ("I play the guitar.",), ("Jon plays the guitar",), "skip"),
    _c("dogs again", "restatement", ("Caroline has two dogs",), ("I have two dogs.",),
       ("Caroline has two dogs",), "skip", "Caroline"),
    _c("marathon, shorter", "restatement", ("Melanie is training for a marathon in October",),
       ("I'm training for a marathon.",), ("Melanie is training for a marathon",), "skip",
       "Melanie"),
    _c("employer, shorter", "restatement", ("Ana works at Acme Corp in the lab",),
       ("I work at Acme Corp.",), ("Ana works at Acme Corp",), "skip", "Ana"),
    _c("still vegetarian", "restatement", ("Jon is vegetarian",), ("I'm still vegetarian.",),
       ("Jon is still vegetarian",), "skip"),
    _c("speaker form", "restatement", ("Gina: Dance is Gina's go-to for stress relief",),
       ("Dance is my go-to for stress relief.",), ("Gina: Dance is Gina's go-to for stress relief",),
       "skip", "Gina"),
    # -- paraphrases: other words, the same fact ------------------------------------------------
    _c("career", "paraphrase",
       ("Caroline has been looking into counseling or mental health work more",),
       ("I've been looking into counseling and mental health as a career lately.",),
       ("Caroline has been looking into counseling and mental health as a career lately",),
       "skip", "Caroline"),
    _c("won't quit", "paraphrase", ("Jon won't quit, no matter what",),
       ("I won't quit, even when it's hard.",), ("Jon won't quit, even when it's hard",), "skip"),
    _c("dreams", "paraphrase", ("Jon will keep pushing and make Jon's dreams come true",),
       ("I'll keep pushing and working to make my dreams happen.",),
       ("Jon will keep pushing and working to make Jon's dreams happen",), "skip"),
    _c("grateful", "paraphrase",
       ("Caroline is really thankful for the support of friends, family and mentors",),
       ("I'm truly grateful for all the support I've got from friends and mentors.",),
       ("Caroline is truly grateful for all the support Caroline has got from friends and "
        "mentors",), "skip", "Caroline"),
    _c("lost job", "paraphrase", ("Gina lost Gina's job at Door Dash this month",),
       ("Unfortunately, I lost my job at Door Dash this month.",),
       ("Unfortunately, Gina lost Gina's job at Door Dash this month",), "skip", "Gina"),
    _c("painting", "paraphrase", ("Melanie enjoys painting landscapes",),
       ("I love painting landscapes.",), ("Melanie loves painting landscapes",), "skip",
       "Melanie"),
    _c("art show", "paraphrase",
       ("Caroline is putting together an LGBTQ art show with Caroline's paintings next month",),
       ("I'm having an LGBTQ art show with my paintings next month.",),
       ("Caroline is having an LGBTQ art show with Caroline's paintings next month",), "skip",
       "Caroline"),
    _c("studio", "paraphrase", ("Jon is turning Jon's love of dance into a business",),
       ("I'm turning my love of dancing into a business.",),
       ("Jon is turning Jon's love of dancing into a business",), "skip"),
    # -- corrections: the same attribute, another value -----------------------------------------
    _c("moved", "correction", ("Maria lives in Lisbon",), ("I moved to Porto.",),
       ("Maria moved to Porto",), "replace", "Maria"),
    _c("new employer", "correction", ("Jon works at Acme",), ("I work at Globex now.",),
       ("Jon works at Globex now",), "replace"),
    _c("favourite colour", "correction", ("Ana's favorite color is blue",),
       ("My favorite color is green.",), ("Ana's favorite color is green",), "replace", "Ana"),
    _c("age", "correction", ("Tom is 30 years old",), ("I'm 31 years old.",),
       ("Tom is 31 years old",), "replace", "Tom"),
    _c("job", "correction", ("Sam works as a teacher",), ("I work as a nurse now.",),
       ("Sam works as a nurse now",), "replace", "Sam"),
    _c("boss", "correction", ("Priya's boss is Karen",), ("My boss is Linda.",),
       ("Priya's boss is Linda",), "replace", "Priya"),
    _c("hometown", "correction", ("Omar's hometown is Cairo",),
       ("My hometown is Alexandria.",), ("Omar's hometown is Alexandria",), "replace", "Omar"),
    _c("sister, corrected", "correction", ("Alice's sister is Bea",),
       ("Actually, my sister is Cleo.",), ("Alice's sister is Cleo",), "replace", "Alice"),
    _c("cats, corrected", "correction", ("Jon has three cats",), ("Actually, I have two cats.",),
       ("Jon has two cats",), "replace"),
    _c("relocated", "correction", ("Lee lives in Berlin",), ("I live in Munich now.",),
       ("Lee lives in Munich now",), "replace", "Lee"),
    # -- look-alikes: the same shape, another fact ----------------------------------------------
    _c("green tea", "lookalike", ("Jon likes tea",), ("I like green tea.",),
       ("Jon likes green tea",), "add"),
    _c("second sister", "lookalike", ("Alice's sister is Bea",), ("My sister is Cleo.",),
       ("Alice's sister is Cleo",), "add", "Alice"),
    _c("cats and dogs", "lookalike", ("Jon has three cats",), ("I have two dogs.",),
       ("Jon has two dogs",), "add"),
    _c("two cats", "lookalike", ("Jon has three cats at home",), ("I have two cats at work.",),
       ("Jon has two cats at work",), "add"),
    _c("sister's home", "lookalike", ("Maria lives in Lisbon",), ("My sister lives in Porto.",),
       ("Maria's sister lives in Porto",), "add", "Maria"),
    _c("half marathon", "lookalike", ("Jon runs marathons",), ("I run half marathons.",),
       ("Jon runs half marathons",), "add"),
    _c("parade month", "lookalike", ("Caroline went to a pride parade in June",),
       ("I went to a pride parade in August.",),
       ("Caroline went to a pride parade in August",), "add", "Caroline"),
    _c("son", "lookalike", ("Melanie's daughter likes dinosaurs",), ("My son likes dinosaurs.",),
       ("Melanie's son likes dinosaurs",), "add", "Melanie"),
    _c("piano", "lookalike", ("Jon plays the guitar",), ("I play the piano.",),
       ("Jon plays the piano",), "add"),
    _c("shellfish", "lookalike", ("Ana is allergic to peanuts",), ("I'm allergic to shellfish.",),
       ("Ana is allergic to shellfish",), "add", "Ana"),
    _c("rome", "lookalike", ("Jon visited Paris last year",), ("I visited Rome last year.",),
       ("Jon visited Rome last year",), "add"),
    _c("sea", "lookalike", ("Jon likes hiking in the mountains",), ("I like hiking by the sea.",),
       ("Jon likes hiking by the sea",), "add"),
    _c("coffee", "lookalike", ("Jon likes coffee",), ("I don't like tea.",),
       ("Jon doesn't like tea",), "add"),
    # -- no referent: says nothing on its own ---------------------------------------------------
    _c("loves it", "no_referent", (), ("I love it!",), ("Melanie loves it",), "drop", "Melanie"),
    _c("rooting", "no_referent", (), ("I'm rooting for you.",), ("Gina is rooting for you",),
       "drop", "Gina"),
    _c("so proud", "no_referent", (), ("I'm so proud of you.",),
       ("Caroline is so proud of you",), "drop", "Caroline"),
    _c("here for you", "no_referent", (), ("I'm always here for you.",),
       ("Jon is always here for you",), "drop"),
    _c("loving it", "no_referent", (), ("I'm loving it.",), ("Gina is loving it",), "drop",
       "Gina"),
    _c("names it", "named", (), ("I love it when my kids laugh.",),
       ("Melanie loves it when Melanie's kids laugh",), "add", "Melanie"),
    _c("names the concert", "named", (), ("I loved the concert in the park.",),
       ("Melanie loved the concert in the park",), "add", "Melanie"),
    # -- twins within one review: kept once -----------------------------------------------------
    _c("home twice", "batch", (), ("I live in Lisbon, Portugal.", "Yes, I live in Lisbon."),
       ("Maria lives in Lisbon, Portugal", "Maria lives in Lisbon"), "one", "Maria"),
    _c("quit twice", "batch", (), ("I won't quit, no matter what.",
                                   "I won't quit, even when it's hard."),
       ("Jon won't quit, no matter what", "Jon won't quit, even when it's hard"), "one"),
    _c("painting twice", "batch", (), ("I love painting landscapes.",
                                       "I really love painting landscapes."),
       ("Melanie loves painting landscapes", "Melanie really loves painting landscapes"),
       "one", "Melanie"),
    _c("guitar twice", "batch", (), ("I've been learning the guitar.",
                                     "I've been learning guitar lately."),
       ("Jon has been learning the guitar", "Jon has been learning guitar lately"), "one"),
)  # fmt: skip

# The floors tests/integration/test_review_corpus.py holds, per group: the share of cases whose
# review ends as expected.
FLOORS = {
    "restatement": 1.0,
    "paraphrase": 0.85,
    "correction": 0.9,
    "lookalike": 1.0,
    "no_referent": 1.0,
    "named": 1.0,
    "batch": 1.0,
}
