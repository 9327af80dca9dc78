"""Hybrid ranking, once for every index: words and meaning combined, newer documents winning
ties.

Hybrid scores are a convex combination of the cosine and the BM25 score normalised by the best
BM25 score of the query: `0.75 * cosine + 0.25 * bm25 / best_bm25`. Measured on the LoCoMo dev
half (benchmarks/RESULTS.md) this beat weighted reciprocal-rank fusion (recall@10 0.646-0.652
against 0.622-0.639 over the weights and k tried): BM25 is the weaker signal on conversational
memory, and rank fusion throws away how much better the best match is than the next.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from .index import Hit
from .when import Window

VECTOR_WEIGHT = 0.75
# With no min_score set, a record needs at least this cosine to be found by meaning alone.
DEFAULT_MIN_SCORE = 0.25
_EPOCH = datetime.min


@dataclass(frozen=True)
class Ranked:
    id: str
    score: float
    lexical: float | None = None
    cosine: float | None = None
    session_id: str | None = None
    created_at: datetime | None = None  # history: when the event was said
    own: float | None = None  # history: the lexical score of the event's own words (Hit.own)


def fuse(
    lexical: Sequence[Hit],
    vector: Sequence[Hit],
    mode: str,
    min_score: float | None,
    created: dict[str, datetime],
    vector_weight: float = VECTOR_WEIGHT,
) -> list[Ranked]:
    """Rank ids for `mode` (hybrid | lexical | vector); equal scores go to the newer document.

    A document found by meaning alone needs a cosine of at least `min_score`; one that shares
    words with the query is kept whatever its cosine.
    """
    floor = DEFAULT_MIN_SCORE if min_score is None else min_score
    words = {h.id: h.score for h in lexical} if mode != "vector" else {}
    meaning = {h.id: h.score for h in vector} if mode != "lexical" else {}
    best_words = max(words.values(), default=0.0) or 1.0
    # A document the vector list did not reach scores as its weakest member.
    weakest = min(meaning.values(), default=0.0)
    sessions = {h.id: h.session_id for h in (*lexical, *vector) if h.session_id is not None}
    own = {h.id: h.own for h in lexical if h.own is not None} if mode != "vector" else {}
    ranked = []
    for doc_id in words.keys() | meaning.keys():
        cosine = meaning.get(doc_id)
        if doc_id not in words and (cosine is None or cosine < floor):
            continue
        if mode == "lexical":
            score = words[doc_id]
        elif mode == "vector":
            score = cosine if cosine is not None else weakest
        else:
            score = (
                vector_weight * (cosine if cosine is not None else weakest)
                + (1 - vector_weight) * words.get(doc_id, 0.0) / best_words
            )
        ranked.append(
            Ranked(
                doc_id,
                score,
                words.get(doc_id),
                cosine,
                sessions.get(doc_id),
                created.get(doc_id),
                own.get(doc_id),
            )
        )
    ranked.sort(key=lambda r: (round(r.score, 6), _naive(created.get(r.id)), r.id), reverse=True)
    return ranked


def _naive(moment: datetime | None) -> datetime:
    return moment.replace(tzinfo=None) if moment is not None else _EPOCH


# How much a document said within the time a query names gains (history search; measured on
# both dev sets, benchmarks/RESULTS.md "Time-aware ranking").
WINDOW_BOOST = 0.5


def favour_windows(
    ranked: list[Ranked], windows: Sequence[Window], boost: float = WINDOW_BOOST
) -> list[Ranked]:
    """`ranked` with the documents said inside any of `windows` scoring `boost` more, best
    first again. A boost, never a filter: the rest keep their places among themselves."""
    if not windows:
        return ranked
    return _rescored(
        ranked,
        {
            r.id: r.score * (1 + boost)
            for r in ranked
            if r.created_at is not None and any(w.holds(r.created_at) for w in windows)
        },
    )


# An assistant's reply is indexed with the words of the user message it answers (its context)
# and often repeats them, so it outranks the message that said them, where the fact usually is.
# When both are found, this share of what the reply's context words scored goes to the user's
# message. Measured on LongMemEval dev (benchmarks/RESULTS.md "Answered messages"): shares of
# 0.4-0.6 each gain message recall at 1, 5 and 10; LoCoMo holds no assistant replies.
ANSWER_CREDIT = 0.5


def credit_answered(
    ranked: list[Ranked],
    answered: Mapping[str, str],
    mode: str,
    share: float = ANSWER_CREDIT,
    best_words: float | None = None,
) -> list[Ranked]:
    """`ranked` with `share` of each reply's context score moved to the message it answers
    (`answered`: the reply's id -> that message's id, both among `ranked`), best first again.
    In hybrid mode the words' part of a score is scaled as `fuse` scales it, by the best words
    score it was fused with (`best_words`; by default the best among `ranked`); meaning alone
    (vector mode) has no words to move."""
    if mode == "vector" or not answered:
        return ranked
    by_id = {r.id: r for r in ranked}
    if best_words is None:
        best_words = max((r.lexical for r in ranked if r.lexical is not None), default=0.0)
    best_words = best_words or 1.0
    scale = 1.0 if mode == "lexical" else (1 - VECTOR_WEIGHT) / best_words
    moved: dict[str, float] = {}
    for reply_id, message_id in answered.items():
        reply, message = by_id.get(reply_id), by_id.get(message_id)
        if reply is None or message is None or reply.lexical is None or reply.own is None:
            continue
        credit = share * max(reply.lexical - reply.own, 0.0) * scale
        moved[reply_id] = moved.get(reply_id, 0.0) - credit
        moved[message_id] = moved.get(message_id, 0.0) + credit
    if not moved:
        return ranked
    return _rescored(ranked, {i: by_id[i].score + delta for i, delta in moved.items()})


# A history search is mostly asked for what the person the agent serves said; the agent's replies
# restate and elaborate it (and, long, share words and meaning with many questions). Unless the
# query asks about the agent's own words (speaker.asks_for_replies), an assistant's event scores
# this share of its score. Measured on LongMemEval dev (benchmarks/RESULTS.md "Replies weighed
# lower"); LoCoMo's speakers are both users, so nothing moves there.
REPLY_WEIGHT = 0.8


def weigh_replies(
    ranked: list[Ranked], replies: Collection[str], weight: float = REPLY_WEIGHT
) -> list[Ranked]:
    """`ranked` with each of `replies` (ids of assistant events' parts) scoring `weight` of its
    score (a negative score as much lower), best first again; the rest keep their places among
    themselves."""
    if not replies:
        return ranked
    cut = 1 - weight
    return _rescored(
        ranked, {r.id: r.score - cut * abs(r.score) for r in ranked if r.id in replies}
    )


def _rescored(ranked: list[Ranked], scores: Mapping[str, float]) -> list[Ranked]:
    """`ranked` with the documents `scores` names scoring as it says, best first again; the
    rest, and ties, keep their order (a stable sort)."""
    out = [replace(r, score=scores[r.id]) if r.id in scores else r for r in ranked]
    out.sort(key=lambda r: r.score, reverse=True)
    return out
