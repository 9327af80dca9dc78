"""benchmarks/train_fusion.py's fit: deterministic, and it learns what separates gold candidates,
on a tiny synthetic set (the dev sets' rows come from benchmark runs)."""

from __future__ import annotations

import numpy as np

from agent_memory.domain.search import FEATURES
from benchmark_modules import load_benchmark

train = load_benchmark("train_fusion")
WORDS = FEATURES.index("words")
RECENCY = FEATURES.index("recency")


def synthetic(seed: int, questions: int = 12, candidates: int = 8) -> list:  # type: ignore[type-arg]
    """Questions whose gold candidate has the most words; recency is noise; the hand-set score
    (feature 0) puts the gold candidate anywhere."""
    rng = np.random.default_rng(seed)
    out = []
    for n in range(questions):
        x = rng.random((candidates, len(FEATURES)))
        gold = np.zeros(candidates, dtype=bool)
        gold[int(np.argmax(x[:, WORDS]))] = True
        items = [(f"e{n}.{i}", {"id": f"e{n}.{i}"}) for i in range(candidates)]
        best = items[int(np.argmax(gold))][1]
        out.append(
            train.Question(
                "locomo" if n % 2 else "lme",
                n % train.FOLDS,
                x,
                gold,
                items,
                lambda results, g=best: {"hit@1": float(results[0] == g)},
                "single-hop",
                10,
            )
        )
    return out


def test_the_same_rows_give_the_same_coefficients() -> None:
    first = train.fit(synthetic(7))
    again = train.fit(synthetic(7))

    assert first.tobytes() == again.tobytes()
    assert first.shape == (len(FEATURES),)


def test_the_fit_weighs_what_separates_gold_candidates() -> None:
    questions = synthetic(7)

    weights = train.fit(questions)

    # The words weigh most, and the model puts every question's gold candidate first
    assert int(np.argmax(np.abs(weights))) == WORDS and weights[WORDS] > 0
    assert abs(weights[RECENCY]) < weights[WORDS] / 5
    for q in questions:
        assert q.figures(q.x @ weights) == {"hit@1": 1.0}


def test_a_feature_that_never_varies_weighs_nothing() -> None:
    questions = synthetic(3)
    for q in questions:
        q.x[:, RECENCY] = 0.5

    assert train.fit(questions)[RECENCY] == 0.0


def test_results_are_one_an_event_and_skip_what_the_search_may_not_return() -> None:
    # Given two parts of one event and a candidate the search may not return
    q = train.Question(
        "lme",
        0,
        np.zeros((3, len(FEATURES))),
        np.array([False, False, False]),
        [("e1", {"id": "e1"}), None, ("e1", {"id": "e1"})],
        lambda results: {"returned": float(len(results))},
        "multi-session",
        10,
    )

    assert q.figures(np.array([3.0, 2.0, 1.0])) == {"returned": 1.0}
