"""Entities: the names a record, a file memory or a history event mentions, as keys that link
items to each other (`Caroline` in one message and `Caroline's` in another are one key).

Offline and model-free, by rules English text follows: a run of capitalised words is a name
(`Caroline`, `New York`, `LGBTQ`), unless it only starts a sentence and is a common word there
(`What`, `Thanks`, `Yesterday`); `I` and its contractions never are; months and weekdays are
dates, which when.py reads, not entities. Possessives fold into their owner (`Caroline's` ->
caroline). The speaker a history event carries in its metadata is an entity of that event: a
message says who said it even when its text never names them.

A key is the name lower-cased with single spaces, a possessive `'s` dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..kernel.patterns import Pattern
from .lexical import STOPWORDS

MAX_ENTITIES = 32  # keys kept from one text, the first named first
MAX_KEY_CHARS = 64  # a longer run of capitals is a heading, not a name
_MAX_WORDS = 4  # words of one name (`Museum of Modern Art` is split, rarely matters)

# Words a note or a record's summary often starts with (`User prefers...`, `Releases ship...`).
_NOTE_STARTS = frozenset(
    """add added always ask asked avoid before call check confirm customer customers default
    deploy deploys don't keep make meeting meetings never note notes plan prefer prefers
    release releases remember reminder run send ship ships task tasks todo
    use user users uses""".split()
)
# Endings of a capitalised first word that make it a verb or an adverb, not a name.
_INFLECTED = ("ing", "ed", "ly")
# Words that start sentences in conversation and notes: capitalised there only by position.
_COMMON = (
    STOPWORDS
    | frozenset(
        """also always and anyway awesome because but congrats congratulations definitely did do
    does dont even ever exactly finally first good great guess haha happy hello here hey hi
    honestly hope however i'd i'll i'm i've if im indeed it's just last let let's lol maybe
    next no nope now oh ok okay omg once one perhaps please plus really right same see sorry
    still sure tell thank thanks that's then there's they're though thx today tomorrow tonight
    totally true two well we're what's wow yay yeah yep yes yesterday you're yup absolutely
    actually agreed alright amazing anything anyone as cool every everything glad go hmm how's
    interesting it like look love meanwhile mine my nice no one nothing oops others our recently
    seems since some something sometimes soon speaking that these this those thought um wait
    welcome where's who's wish would bye goodbye""".split()
    )
    | _NOTE_STARTS
)
# Dates are not entities: when.py reads them, and `May` or `March` as a name is rarer than as a
# month in the messages a memory keeps.
_CALENDAR = frozenset(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
    saturday sunday mon tue tues wed thu thur thurs fri sat sun""".split()
)

# Titles before a name: not part of its key.
_TITLES = frozenset("mr mrs ms miss dr prof sir madam mx".split())

# A word: letters (any script with case), digits, and inner apostrophes, hyphens, dots or
# ampersands (`O'Brien`, `Jean-Luc`, `St.`, `AT&T`).
_WORD = Pattern(r"[^\W_][\w]*(?:['\u2019&.-][^\W_]+)*['\u2019]?", re.UNICODE)
# What ends a sentence (or a line, a list item, a heading): the next word starts a new one.
_BREAK = Pattern(r"[.!?:;\n\u2026\"\u201c\u201d()\[\]*#>|-]\s*$|^\s*$")


def entity_key(name: str) -> str:
    """The key of a name: lower case, single spaces, a possessive dropped."""
    words = [_drop_possessive(w) for w in name.split()]
    return " ".join(w for w in words if w).lower()


def name_key(name: str) -> str | None:
    """The key of a name a model gave (entity_model.py), made as the rules make theirs, so a
    model's `Caroline's` or `Dr. Smith` meets the rules' caroline and smith; None for what the
    rules never key (a pronoun, a date, a common word, a heading-long phrase, a `#`)."""
    words = _WORD.findall(name)
    # `the lake`, `my pottery bowl`, `Dr. Smith`: the rules' keys never start with these.
    while words and (
        words[0].rstrip(".").lower() in _TITLES or _drop_possessive(words[0]).lower() in _COMMON
    ):
        words = words[1:]
    if not words or len(words) > _MAX_WORDS:
        return None
    key = entity_key(" ".join(w if _is_initial(w) else w.rstrip(".") for w in words))
    if not key or len(key) > MAX_KEY_CHARS or key in _COMMON or key in _CALENDAR:
        return None
    if key == "i" or key.isdigit() or all(w in _COMMON for w in key.split()):
        return None
    return key


def entities(text: str, speakers: Iterable[str] = ()) -> tuple[str, ...]:
    """The entity keys `text` mentions, first mention first, and the `speakers` who said it
    (first), at most MAX_ENTITIES."""
    found: dict[str, None] = {}
    for speaker in speakers:
        key = entity_key(speaker)
        if key and len(key) <= MAX_KEY_CHARS and "#" not in key:  # a key of the cloud's table
            found.setdefault(key)
    for name in _names(text):
        if len(found) >= MAX_ENTITIES:
            break
        found.setdefault(name)
    return tuple(found)[:MAX_ENTITIES]


def _names(text: str) -> Iterable[str]:
    run: list[str] = []
    start = 0  # where the text after the last word begins
    sentence_start = True
    after_title = False
    for match in _WORD.finditer(text):
        between = text[start : match.start()]
        start = match.end()
        if run and between.strip() and not after_title:  # punctuation ends a name
            yield from _emit(run)
            run = []
        if not after_title and _BREAK.search(between):
            sentence_start = True
        word = match.group()
        after_title = word.rstrip(".").lower() in _TITLES
        if after_title:
            continue  # `Dr. Smith` is Smith; the title's dot ends no sentence
        if _is_name_word(word, sentence_start) and len(run) < _MAX_WORDS:
            run.append(word)
        else:
            if run:
                yield from _emit(run)
            run = []
        sentence_start = False
    if run:
        yield from _emit(run)


def _is_name_word(word: str, sentence_start: bool) -> bool:
    bare = _drop_possessive(word).rstrip(".")
    if not bare or not bare[0].isupper():
        return False
    folded = bare.lower()
    if (
        folded in _CALENDAR
        or folded.removesuffix("s") in _CALENDAR
        or folded == "i"
        or folded.startswith(("i'", "i\u2019"))
    ):
        return False
    if bare.isupper() and len(bare) > 1 and bare.isalpha():
        return True  # an acronym: LGBTQ, NASA, API
    if sentence_start and (
        folded in _COMMON
        or word.lower() in _COMMON
        or (len(folded) > 4 and folded.endswith(_INFLECTED))
    ):
        return False  # `Deployed ...`, `Testing ...`: a verb or adverb, capitalised by position
    return not bare.isdigit()


def _emit(run: list[str]) -> Iterable[str]:
    key = entity_key(" ".join(w.rstrip(".") if not _is_initial(w) else w for w in run))
    if key and len(key) <= MAX_KEY_CHARS and key not in _COMMON:
        yield key


def _is_initial(word: str) -> bool:
    return len(word) <= 3 and word.endswith(".") and word[0].isupper()


def _drop_possessive(word: str) -> str:
    for ending in ("'s", "\u2019s", "'", "\u2019"):
        if word.lower().endswith(ending):
            return word[: -len(ending)]
    return word
