"""Lexical ranking: tokenising and BM25, with newer documents winning ties."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .index import CONTEXT_WEIGHT
from .scripts import words

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves""".split()
)


def tokenize(text: str, *, query: bool = False) -> list[str]:
    """Folded word tokens without stopwords; `what's` -> `what`, `eu-west-1` -> eu west 1,
    `Zürich` -> zurich, `日本語` -> 日 本 語 日本 本語 (`query`: 日本 本語; scripts.py)."""
    tokens = []
    for token in words(text, query=query):
        token = token.split("'", 1)[0]
        if token and token not in STOPWORDS:
            tokens.append(token)
    return tokens


def stem(word: str) -> str:
    """A light English suffix stemmer (`deployed`, `deploying` -> deploy; `services`,
    `service` -> servic) for indexes that keep their own word postings, so inflected words
    find each other as the engines' stemmers (FTS5 porter, OpenSearch english) make them.
    Conservative: short words, numbers and `-ss`/`-us`/`-is` endings stay as they are."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # stopped -> stop
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def stems(text: str, *, query: bool = False) -> list[str]:
    """`tokenize`, each word stemmed."""
    return [stem(word) for word in tokenize(text, query=query)]


@dataclass(frozen=True)
class WeightedWords:
    """A document's words as BM25 counts them where this code scores it (S3 Vectors' postings,
    OpenSearch's re-score)."""

    counts: dict[str, float]  # each stem of its text once, of its context CONTEXT_WEIGHT
    length: float  # its text's stems, and CONTEXT_WEIGHT of each of its context's
    own: dict[str, float]  # its text's stems alone: what its own words score (Hit.own)


def weighted_words(text: str, context: str) -> WeightedWords:
    """A document's words: each stem of its text once and each of its context (the words said
    before a history event) CONTEXT_WEIGHT, in the word's count and in the length."""
    own_stems = stems(text)
    said = stems(context) if context else []
    own: dict[str, float] = {}
    for word in own_stems:
        own[word] = own.get(word, 0.0) + 1.0
    counts = dict(own)
    for word in said:
        counts[word] = counts.get(word, 0.0) + CONTEXT_WEIGHT
    return WeightedWords(counts, len(own_stems) + CONTEXT_WEIGHT * len(said), own)


@dataclass(frozen=True)
class Scored:
    index: int
    score: float


def bm25_term(
    tf: float, df: int, n: int, length: float, avg: float, k1: float = 1.2, b: float = 0.75
) -> float:
    """One query word's BM25 in one document: `tf` times in a document of `length` words, found
    in `df` of `n` documents whose average length is `avg`. Indexes that keep their own word
    counts (postings) score with this, so every lexical ranking is the same formula."""
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / (avg or 1.0)))


def bm25(query: str, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> list[Scored]:
    """Documents sharing a word with the query, best first; ties go to the later document
    (callers pass documents oldest first, so newer wins)."""
    terms = set(tokenize(query, query=True))
    if not terms or not documents:
        return []
    tokenized = [tokenize(doc) for doc in documents]
    avg = sum(len(t) for t in tokenized) / len(tokenized) or 1.0
    frequency = Counter(term for tokens in tokenized for term in set(tokens) if term in terms)
    n = len(documents)
    scored = []
    for index, tokens in enumerate(tokenized):
        counts = Counter(tokens)
        score = 0.0
        for term in terms:
            tf = counts.get(term, 0)
            if not tf:
                continue
            score += bm25_term(tf, frequency[term], n, len(tokens), avg, k1, b)
        if score > 0:
            scored.append(Scored(index, score))
    scored.sort(key=lambda s: (-s.score, -s.index))
    return scored
