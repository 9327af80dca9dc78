"""The learned fusion (domain/search/fusion.py): the features it reads of each candidate, and the
order a model with known coefficients puts candidates in."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from agent_memory.bootstrap import build_search
from agent_memory.domain.search import FEATURES, LearnedFusion, Reach, Signals, features, learned
from agent_memory.domain.search.fusion_weights import COEFFICIENTS
from agent_memory.domain.search.links import Mention
from agent_memory.domain.search.ranking import Ranked
from agent_memory.domain.search.when import Window
from agent_memory.settings import Settings

T0 = datetime(2025, 5, 1, tzinfo=UTC)


def at(hours: int) -> datetime:
    return T0 + timedelta(hours=hours)


def named(rows: list[tuple[float, ...]]) -> list[dict[str, float]]:
    return [dict(zip(FEATURES, row, strict=True)) for row in rows]


def model(**weights: float) -> LearnedFusion:
    return LearnedFusion(tuple(weights.get(name, 0.0) for name in FEATURES))


# The fused candidates of one search: a message found by words and meaning, the assistant's reply
# to it (its words mostly its context's), one found by meaning alone, one by words alone.
FUSED = [
    Ranked("msg.1", 0.9, lexical=4.0, cosine=0.7, created_at=at(0), own=4.0),
    Ranked("reply.1", 0.8, lexical=3.0, cosine=0.6, created_at=at(1), own=1.0),
    Ranked("meaning.1", 0.5, cosine=0.5, created_at=at(2)),
    Ranked("words.1", 0.2, lexical=2.0, created_at=at(3), own=2.0),
]


def test_each_signal_becomes_its_feature() -> None:
    # Given the hand-set ranking of FUSED, with the reply answering the message, a window
    # holding the third hour, the reply weighed lower, and an entity hop reaching one found by
    # words and one nothing else found
    hop = Ranked("hop.1", 0.1, created_at=at(4))
    ranked = [*FUSED, hop]
    signals = Signals(
        FUSED,
        answered={"reply.1": "msg.1"},
        windows=[Window(at(2) - timedelta(minutes=1), at(2) + timedelta(minutes=1), "then")],
        replies={"reply.1"},
        reach=Reach(
            first=Counter({"words.1": 2}),
            second=Counter({"hop.1": 3}),
            found={"hop.1": Mention("event", "hop.1", at(4))},
        ),
        query="what did I say?",
    )

    rows = named(features(ranked, signals))

    msg, reply, meaning, words, hopped = rows
    # The hand-set score is read as it stands; words over the best words score of the query
    assert msg["fixed"] == 0.9 and msg["words"] == 1.0 and msg["own"] == 1.0
    # The reply's words split into its own (1 of 3) and its context's (2 of 3)
    assert reply["own"] == 0.25 and reply["context"] == 0.5 and reply["reply"] == 1.0
    # The message it answers is credited its context score
    assert msg["credited"] == 0.5 and reply["credited"] == 0.0
    # A candidate the vector list missed scores its weakest cosine, marked not reached
    assert words["meaning"] == 0.5 and words["reached"] == 0.0 and meaning["reached"] == 1.0
    assert hopped["meaning"] == 0.5 and hopped["words"] == 0.0
    # The window, the hops (a second hop counted at most twice) and the recency place
    assert [r["window"] for r in rows] == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert words["first_hop"] == 2.0 and hopped["second_hop"] == 2.0 and msg["first_hop"] == 0.0
    assert [r["recency"] for r in rows] == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_no_signal_is_no_feature() -> None:
    # Given a search with no replies, windows or hops, and nothing found by words
    fused = [Ranked("a.1", 0.6, cosine=0.6), Ranked("b.1", 0.4, cosine=0.4)]

    rows = named(features(fused, Signals(fused)))

    for row in rows:
        assert row["words"] == row["own"] == row["context"] == row["credited"] == 0.0
        assert row["window"] == row["reply"] == row["first_hop"] == row["second_hop"] == 0.0
        assert row["recency"] == 0.0  # no time told


def test_a_model_orders_by_its_weighted_features() -> None:
    # Given the hand-set order (by fused score)
    signals = Signals(FUSED)

    # When a model weighs words alone, then the candidates come in the order of their words
    by_words = model(words=1.0).rescore(FUSED, signals)
    assert [r.id for r in by_words] == ["msg.1", "reply.1", "words.1", "meaning.1"]
    assert by_words[0].score == 1.0

    # A model weighing recency alone puts the newest first
    newest = model(recency=2.0).rescore(FUSED, signals)
    assert [r.id for r in newest] == ["words.1", "meaning.1", "reply.1", "msg.1"]

    # And one weighing the hand-set score alone keeps the hand-set order and scores
    assert model(fixed=1.0).rescore(FUSED, signals) == FUSED


def test_ties_keep_the_hand_set_order() -> None:
    # Given a model that weighs nothing: every candidate ties
    out = model().rescore(FUSED, Signals(FUSED))

    assert [r.id for r in out] == [r.id for r in FUSED]
    assert {r.score for r in out} == {0.0}


def test_a_model_must_weigh_every_feature() -> None:
    with pytest.raises(ValueError, match=f"weighs {len(FEATURES)} features"):
        LearnedFusion((1.0, 2.0))


def test_the_committed_model_names_every_feature() -> None:
    assert set(COEFFICIENTS) == set(FEATURES)
    assert learned().coefficients == tuple(COEFFICIENTS[name] for name in FEATURES)


def test_the_setting_picks_the_fusion_and_refuses_an_unknown_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # The hand-set weights by default
    assert Settings(data_dir=tmp_path).search_fusion == "fixed"
    assert build_search(Settings(data_dir=tmp_path), store=object(), embedder=None).fusion is None  # type: ignore[arg-type]

    # The learned model when asked
    on = Settings(data_dir=tmp_path, search_fusion="learned")
    assert build_search(on, store=object(), embedder=None).fusion == learned()  # type: ignore[arg-type]

    # Anything else fails at start
    with pytest.raises(ValidationError, match="search_fusion"):
        Settings(data_dir=tmp_path, search_fusion="neural")
