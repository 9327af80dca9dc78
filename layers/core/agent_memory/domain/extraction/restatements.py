"""What every review checks after its model decided, whatever the model: a candidate that says
again what an active memory (or an earlier candidate of the same review) says is skipped, one
that gives a single-valued attribute a new value replaces the memory holding the old one, and
one that says nothing on its own ("Melanie loves it") is never kept.

Two summaries are read as facts: who they are about, their content words, the numbers and names
they hold, whether they deny, and, for a single-valued attribute, its key and value:

    "Jon likes tea"           / "Jon likes green tea"        -> a look-alike: both kept (the
                                                                 new one says more: green tea
                                                                 only, perhaps)
    "Jon likes green tea"     / "Jon likes tea"              -> restates: skipped
    "Alice's sister is Bea"   / "Alice's sister is Cleo"     -> both kept: a sister is one of
                                                                 several (unless a correction)
    "Alice's age is 30"       / "Alice is 31 years old"      -> replaces (one age at a time)
    "Jon has three cats"      / "Jon has two cats"           -> never a twin: the numbers differ

A restatement is a candidate whose words the memory already holds, or one near it in meaning
(cosine of the summaries >= TWIN_AT, the embedder the review searches with) or in words
(WORDS_AT of the content words shared) - never one that denies what the memory affirms, adds a
name or a number, or only adds to it (all the memory's words and more: it says more).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..kernel.patterns import Pattern
from .model import Candidate, Decision, Existing

# Tuned on tests/review_corpus.py (all-MiniLM-L6-v2): paraphrases sit at 0.90-0.98, look-alikes
# that differ in a word that matters (a name, a number, a qualifier) at 0.80-0.93.
TWIN_AT = 0.90
WORDS_AT = 0.75
# A candidate holding all the memory's words and more restates it only this near in meaning
# ("Unfortunately, Gina lost her job" 0.96); below, it says more ("runs half marathons" 0.90).
MORE_AT = 0.95

# Embeds summaries (unit vectors, so a dot product is their cosine); None: words only.
Embed = Callable[[list[str]], Sequence[Sequence[float]]]

_TOKEN = Pattern(r"[a-z0-9]+(?:'[a-z]+)?")
_STOP = frozenset(
    """a about after again all also am an and any are as at be been being both but by can could
    did do does doing for from had has have having here how i if in into is it it's its just
    me more most my now of on once only or other our out over own same so some such than that
    the their them then there these they this those through to too up very was we were what
    when where which while who will with would you your really still even always ever pretty
    lot much quite super totally truly definitely gonna lately recently""".split()
)
_NEGATION = frozenset("not no never don't doesn't didn't won't isn't wasn't can't cannot".split())
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve twenty thirty forty "
    "fifty hundred first second third once twice".split()
)
# An object that names nothing without the conversation around it.
_DEICTIC = frozenset("it that this them those these you him her there one to so".split())
_TRAILING = frozenset("so much too a lot very really all as well again now though anyway".split())
_DEICTIC_SUBJECT = Pattern(r"^(?:it|that|this|they|those|these|there)(?:'s|'re)?\b", re.I)
_SPEAKER = Pattern(r"^(?:Correction from )?([A-Z][\w .'-]{0,40}?): (.+)$")
_SUBJECT = Pattern(r"^((?i:(?:the )?user)|[A-Z][\w-]*(?: [A-Z][\w-]*)?)('s)?\b\s*(.*)$")

# Attributes a person holds one value of at a time ("X's <attribute> is <value>" and the verbs
# below); any other possessive ("X's sister is Bea") may hold several.
_SINGLE = frozenset(
    """name age birthday birthplace hometown home address email phone number job title role
    occupation profession employer boss manager husband wife spouse partner fiance fiancee
    boyfriend girlfriend favorite favourite salary timezone nationality""".split()
)
_VERB_KEYS = (
    (
        Pattern(r"^(?:lives|lived|moved|relocated|is living|has moved)\s+(?:in|to)\s+(.+)$"),
        "home",
    ),
    (Pattern(r"^(?:works|worked|is working)\s+(?:at|for)\s+(.+)$"), "employer"),
    (Pattern(r"^(?:works|worked|is working)\s+as\s+(.+)$"), "job"),
    (Pattern(r"^is\s+(\w+)\s+years?\s+old$"), "age"),
    (Pattern(r"^(?:is|got)\s+married\s+to\s+(.+)$"), "spouse"),
)
# "has three cats": how many, an attribute a correction may change ("Actually, two cats").
_COUNT = Pattern(r"^(?:has|have|owns)\s+(\d+|[a-z]+)\s+(\w+)$")

_POSSESSIVE = Pattern(r"^((?:\w+[ -]){0,2}\w+)\s+(?:is|are|was)\s+(?:now\s+)?(.+)$")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _stem(word: str) -> str:
    word = word.removesuffix("'s")
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@dataclass(frozen=True)
class Fact:
    subject: str
    words: frozenset[str]
    numbers: frozenset[str]
    names: frozenset[str]
    negated: bool
    key: str | None = None  # the attribute it sets ("alice's sister", "jon's home")
    value: frozenset[str] = frozenset()
    single: bool = False  # the attribute holds one value at a time


def read(summary: str) -> Fact:
    """A summary read back for comparison (see the module's examples)."""
    text = re.sub(r"\s+", " ", summary).strip().rstrip(".!")
    m = _SPEAKER.match(text)
    if m:  # "Melanie: Plus, painting helps Melanie ...": about the speaker, whatever it starts with
        speaker, text = m[1].lower(), m[2]
    else:
        speaker = None
    m = _SUBJECT.match(text)
    subject, possessive, rest = (m[1].lower(), bool(m[2]), m[3]) if m else ("", False, text)
    subject = subject.removeprefix("the ")
    if speaker is not None and subject != speaker:
        subject, possessive, rest = speaker, False, text
    said = tokens(rest)
    names = frozenset(
        w.lower().removesuffix("'s") for w in re.findall(r"(?<!^)\b[A-Z][a-z]+(?:'s)?", rest)
    )
    key, value, single = _attribute(subject, possessive, rest)
    if possessive and rest:  # "Melanie's son likes dinosaurs" is about Melanie's son
        owned, _, rest = rest.partition(" ")
        subject = f"{subject}'s {owned.lower()}"
    return Fact(
        subject=subject,
        words=frozenset(_stem(w) for w in said if w not in _STOP and w not in _NEGATION)
        - {_stem(w) for w in tokens(subject)},
        numbers=frozenset(w for w in said if w.isdigit() or w in _NUMBER_WORDS),
        names=names - {subject},
        negated=any(w in _NEGATION for w in said),
        key=key,
        value=value,
        single=single,
    )


def _attribute(
    subject: str, possessive: bool, rest: str
) -> tuple[str | None, frozenset[str], bool]:
    """The attribute a summary sets, its value, and whether it holds one value at a time."""
    rest = rest.lower()
    if possessive:
        m = _POSSESSIVE.match(rest)
        if m is None:
            return None, frozenset(), False
        single = bool(set(m[1].replace("-", " ").split()) & _SINGLE)
        return f"{subject}'s {m[1]}", frozenset(tokens(m[2])) - _STOP, single
    for pattern, key in _VERB_KEYS:
        m = pattern.match(rest)
        if m:
            return f"{subject}'s {key}", frozenset(tokens(m[1])) - _STOP, True
    m = _COUNT.match(rest)
    if m and (m[1].isdigit() or m[1] in _NUMBER_WORDS):
        return f"{subject}'s number of {_stem(m[2])}", frozenset({m[1]}), False
    return None, frozenset(), False


def no_referent(summary: str) -> bool:
    """Whether a summary says nothing on its own: what it is about is an unresolved pronoun
    ("Melanie: It was so much fun") or what it says of its subject ends in one with at most
    two words of its own ("Melanie loves it", "Gina is rooting for you")."""
    text = re.sub(r"\s+", " ", summary).strip().rstrip(".!")
    m = _SPEAKER.match(text)
    if m:
        text = m[2]
    pronoun = _DEICTIC_SUBJECT.match(text)
    if pronoun:  # "It was so much fun"; not "They were stoked for the dinosaur exhibit"
        return len(_own(tokens(text[pronoun.end() :]))) <= 2
    m = _SUBJECT.match(text)
    said = tokens(m[3] if m else text)
    while said and said[-1] in _TRAILING and said[-1] not in _DEICTIC:
        said.pop()
    if not said or said[-1] not in _DEICTIC:
        return False
    return len(_own(said[:-1])) <= 2


def _own(said: list[str]) -> list[str]:
    """The words that say something of their own."""
    return [w for w in said if w not in _STOP and w not in _DEICTIC and w not in _NEGATION]


def restates(candidate: Fact, memory: Fact, cosine: float | None) -> bool:
    """Whether `candidate` says nothing `memory` does not (see the module's rules)."""
    if candidate.subject != memory.subject or candidate.negated != memory.negated:
        return False
    if candidate.numbers != memory.numbers or not candidate.names <= memory.names:
        return False
    if not candidate.words:
        return False
    if candidate.words <= memory.words:
        return True
    if memory.words < candidate.words:
        return cosine is not None and cosine >= MORE_AT
    shared = len(candidate.words & memory.words) / len(candidate.words | memory.words)
    return shared >= WORDS_AT or (cosine is not None and cosine >= TWIN_AT)


def corrects(candidate: Fact, memory: Fact, correction: bool) -> bool:
    """Whether `candidate` gives the attribute `memory` sets another value: a single-valued
    attribute always; any other only when the candidate says it corrects."""
    if candidate.negated or memory.negated or candidate.key is None:
        return False
    if candidate.key != memory.key or candidate.value == memory.value:
        return False
    return candidate.single or correction


def reconcile(
    candidates: Sequence[Candidate],
    neighbours: dict[int, list[Existing]],
    decisions: Sequence[Decision],
    embed: Embed | None,
) -> list[Decision]:
    """The model's decisions, checked against the memories each candidate was shown and the
    candidates kept before it: an add that restates becomes a skip, one that corrects a
    single-valued attribute becomes a replace. Other decisions stand as the model made them."""
    texts = [c.summary for c in candidates]
    for group in neighbours.values():
        texts += [e.summary for e in group if e.summary not in texts]
    where = {t: i for i, t in enumerate(texts)}
    vectors = embed(texts) if embed is not None and texts else None

    def cosine(a: str, b: str) -> float | None:
        if vectors is None:
            return None
        return float(sum(x * y for x, y in zip(vectors[where[a]], vectors[where[b]], strict=True)))

    facts = {t: read(t) for t in texts}
    kept: list[str] = []  # summaries this review writes, in order
    taken = {d.target for d in decisions if d.action in ("replace", "delete") and d.target}
    out: list[Decision] = []
    for decision in decisions:
        if decision.action != "add" or decision.candidate >= len(candidates):
            if decision.action == "replace" and decision.candidate < len(candidates):
                kept.append(candidates[decision.candidate].summary)
            out.append(decision)
            continue
        candidate = candidates[decision.candidate]
        said = facts[candidate.summary]
        shown = [e for e in neighbours.get(decision.candidate, []) if e.id not in taken]
        twin = next(
            (
                e
                for e in shown
                if restates(said, facts[e.summary], cosine(candidate.summary, e.summary))
            ),
            None,
        )
        if twin is not None:
            out.append(_as(decision, "skip", twin.id, f"restates {twin.id}"))
            continue
        if any(restates(said, facts[s], cosine(candidate.summary, s)) for s in kept):
            out.append(_as(decision, "skip", None, "restates an earlier candidate"))
            continue
        old = next(
            (e for e in shown if corrects(said, facts[e.summary], candidate.correction)), None
        )
        if old is not None:
            taken.add(old.id)
            out.append(_as(decision, "replace", old.id, f"corrects {old.id}"))
        else:
            out.append(decision)
        kept.append(candidate.summary)
    return out


def _as(decision: Decision, action: str, target: str | None, reason: str) -> Decision:
    return decision.model_copy(update={"action": action, "target": target, "reason": reason})
