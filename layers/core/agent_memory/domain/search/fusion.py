"""A learned fusion for history search: a linear model over what the hand-set ranking already
computes, per candidate, read by the product and by the script that fits it alike.

The hand-set ranking (ranking.py, hops.py) fuses words and meaning with fixed weights, then moves
credit from replies to the messages they answer, favours what was said in a time the query
names, weighs replies lower and adds entity hops. `features` turns each of those signals into a
number; `LearnedFusion` orders candidates by a weighted sum of them (the hand-set score one of
them), with the weights benchmarks/train_fusion.py fitted (fusion_weights.py). Off by default
(AGENT_MEMORY_SEARCH_FUSION=fixed): it would be the default only if it gained on both dev sets,
and on LoCoMo dev it does not (benchmarks/log/fusion.md).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from .fusion_weights import COEFFICIENTS
from .hops import Reach
from .ranking import Ranked
from .when import Window

# The features, in the order a coefficient vector weighs them.
FEATURES = (
    "fixed",  # the hand-set score (ranking.fuse and every boost after it)
    "meaning",  # the cosine; the weakest cosine of the query when the vector list missed it
    "reached",  # 1 when the vector list reached it
    "words",  # the BM25 score over the best BM25 score of the query
    "own",  # what the event's own words scored of it, over the best
    "context",  # what the words said before it (its context) added, over the best
    "window",  # 1 when said within a time the query names
    "reply",  # 1 when an assistant's reply (and the query does not ask what it said)
    "credited",  # the context score of the reply that answers it, over the best
    "first_hop",  # the query's entities it mentions
    "second_hop",  # the entities shared by the first hop's documents that reach it (at most 2)
    "recency",  # its time's place among the candidates', 0 the oldest, 1 the newest
)


@dataclass(frozen=True)
class Signals:
    """What a history search computed besides the hand-set scores: the fused candidates before
    any boost (`fused`, ranking.fuse's), which reply answers which message, the windows the
    query names, the replies weighed lower, what the query's entities reached, and the query."""

    fused: Sequence[Ranked]
    answered: Mapping[str, str] = field(default_factory=dict)
    windows: Sequence[Window] = ()
    replies: Collection[str] = frozenset()
    reach: Reach | None = None
    query: str = ""


def features(ranked: Sequence[Ranked], signals: Signals) -> list[tuple[float, ...]]:
    """One feature vector (FEATURES) a candidate of `ranked` (the hand-set ranking's)."""
    base = {r.id: r for r in signals.fused}
    cosines = [r.cosine for r in signals.fused if r.cosine is not None]
    weakest = min(cosines, default=0.0)
    best = max((r.lexical for r in signals.fused if r.lexical is not None), default=0.0) or 1.0
    credited: dict[str, float] = {}
    for reply_id, message_id in signals.answered.items():
        reply = base.get(reply_id)
        if reply is not None and reply.lexical is not None and reply.own is not None:
            credited[message_id] = credited.get(message_id, 0.0) + max(
                reply.lexical - reply.own, 0.0
            )
    times = sorted({_naive(r.created_at) for r in ranked if r.created_at is not None})
    place = {moment: i / max(len(times) - 1, 1) for i, moment in enumerate(times)}
    first = signals.reach.first if signals.reach is not None else {}
    second = signals.reach.second if signals.reach is not None else {}
    out: list[tuple[float, ...]] = []
    for r in ranked:
        found = base.get(r.id, r)
        words = found.lexical if found.lexical is not None else 0.0
        own = found.own if found.own is not None else words
        said = r.created_at
        out.append(
            (
                r.score,
                found.cosine if found.cosine is not None else weakest,
                1.0 if found.cosine is not None else 0.0,
                words / best,
                own / best,
                max(words - own, 0.0) / best,
                1.0 if said is not None and any(w.holds(said) for w in signals.windows) else 0.0,
                1.0 if r.id in signals.replies else 0.0,
                credited.get(r.id, 0.0) / best,
                float(first.get(r.id, 0)),
                float(min(second.get(r.id, 0), 2)),
                place[_naive(said)] if said is not None else 0.0,
            )
        )
    return out


@dataclass(frozen=True)
class LearnedFusion:
    """Candidates ordered by `coefficients` (one a feature of FEATURES) times their features."""

    coefficients: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.coefficients) != len(FEATURES):
            raise ValueError(
                f"a fusion model weighs {len(FEATURES)} features, not {len(self.coefficients)}"
            )

    def scores(self, ranked: Sequence[Ranked], signals: Signals) -> list[float]:
        return [
            sum(w * x for w, x in zip(self.coefficients, row, strict=True))
            for row in features(ranked, signals)
        ]

    def rescore(self, ranked: Sequence[Ranked], signals: Signals) -> list[Ranked]:
        """`ranked` (the hand-set ranking) scored by the model, best first; ties keep the
        hand-set order."""
        scored = [
            replace(r, score=s) for r, s in zip(ranked, self.scores(ranked, signals), strict=True)
        ]
        scored.sort(key=lambda r: r.score, reverse=True)
        return scored


def _naive(moment: datetime) -> datetime:
    return moment.replace(tzinfo=None)


def learned() -> LearnedFusion:
    """The model benchmarks/train_fusion.py fitted last (fusion_weights.py)."""
    return LearnedFusion(tuple(COEFFICIENTS[name] for name in FEATURES))
