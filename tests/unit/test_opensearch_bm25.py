"""The OpenSearch lexical search's own BM25 (adapters/opensearch/bm25.py), without an engine: the
statistics search, the candidate search, and the re-score, against examples computed by hand
with the agent's statistics (k1 = 1.2, b = 0.75, IDF = ln(1 + (N - df + 0.5) / (df + 0.5)))."""

from __future__ import annotations

import math

import pytest

from agent_memory.adapters.opensearch.bm25 import (
    Statistics,
    candidates_body,
    query_words,
    read_statistics,
    rescore,
    statistics_body,
)

pytestmark = pytest.mark.unit

PARTITION = [
    {"term": {"tenant": "t1"}},
    {"term": {"agent_id": "teams/web"}},
    {"term": {"kind": "record"}},
]
# Four documents of the agent: two hold `falcon`, one `plan`; their average length is 3.
STATS = Statistics(documents=4, frequencies={"falcon": 2, "plan": 1}, average_length=3.0)
IDF_FALCON = math.log(1 + 2.5 / 2.5)
IDF_PLAN = math.log(1 + 3.5 / 1.5)


def candidate(doc_id: str, text: str, context: str = "", created: str = "2025-01-01") -> dict:
    source = {"doc_id": doc_id, "text": text, "created_at": f"{created}T00:00:00+00:00"}
    if context:
        source["context"] = context
    return {"_id": f"aoss-{doc_id}", "_score": 1.0, "_source": source}


def asked(clause: dict) -> dict:
    """The engine's analysed match of a word's clause (beside it: the domain's own `words`)."""
    matched, words = clause["bool"]["should"]
    assert words == {"terms": {"words": [matched["multi_match"]["query"]]}}
    return matched["multi_match"]


def scores(hits) -> dict[str, float]:
    return {hit.id: hit.score for hit in hits}


# -- the statistics ---------------------------------------------------------------------------


def test_the_statistics_are_one_search_over_the_agents_documents_of_the_kind_only():
    words = query_words("falcon plans")

    body = statistics_body("t1", "teams/web", "record", words)

    assert (body["size"], body["track_total_hits"]) == (0, True)
    # No status, scope, label or preview filter: those choose what is found, never its score.
    assert body["query"] == {"bool": {"filter": PARTITION}}
    assert body["aggs"]["average_length"] == {"avg": {"field": "length"}}
    holding = body["aggs"]["holding"]["filters"]["filters"]
    assert list(holding) == ["0", "1"]  # a bucket a word, in the order of the words
    assert asked(holding["0"])["query"] == "falcon"
    assert asked(holding["1"])["query"] == "plans"
    assert asked(holding["0"])["operator"] == "and"


def test_the_statistics_are_read_from_the_total_and_the_buckets():
    words = query_words("falcon plan")
    response = {
        "hits": {"total": {"value": 4, "relation": "eq"}, "hits": []},
        "aggregations": {
            "average_length": {"value": 3.0},
            "holding": {"buckets": {"0": {"doc_count": 2}, "1": {"doc_count": 1}}},
        },
    }

    assert read_statistics(response, words) == STATS
    response["hits"]["total"] = 4  # an engine of old answers a number
    assert read_statistics(response, words) == STATS


def test_no_document_with_a_length_leaves_the_average_unknown():
    response = {
        "hits": {"total": {"value": 2}},
        "aggregations": {
            "average_length": {"value": None},
            "holding": {"buckets": {"0": {"doc_count": 1}}},
        },
    }

    assert read_statistics(response, query_words("falcon")).average_length is None


# -- the candidates ---------------------------------------------------------------------------


def test_candidates_score_the_agents_idf_of_each_word_they_hold_and_pass_every_filter():
    clauses = [*PARTITION, {"term": {"status": "ACTIVE"}}]

    body = candidates_body(query_words("falcon plan"), STATS, clauses, 10)

    assert body is not None
    query = body["query"]["bool"]
    assert query["filter"] == clauses
    assert query["minimum_should_match"] == 1
    boosts = {
        asked(c["constant_score"]["filter"])["query"]: c["constant_score"]["boost"]
        for c in query["should"]
    }
    assert boosts == pytest.approx({"falcon": IDF_FALCON, "plan": IDF_PLAN})
    assert set(body["_source"]) >= {"doc_id", "created_at", "session_id", "text", "context"}


@pytest.mark.parametrize(("limit", "size"), [(1, 100), (25, 100), (26, 104), (50, 200)])
def test_candidates_are_four_times_the_limit_and_at_least_a_hundred(limit, size):
    body = candidates_body(query_words("falcon"), STATS, PARTITION, limit)

    assert body is not None and body["size"] == size


def test_a_word_no_document_holds_is_not_asked_for_and_none_held_asks_nothing():
    body = candidates_body(query_words("falcon zebra"), STATS, PARTITION, 5)
    assert body is not None
    [clause] = body["query"]["bool"]["should"]
    assert asked(clause["constant_score"]["filter"])["query"] == "falcon"

    assert candidates_body(query_words("zebra"), STATS, PARTITION, 5) is None


# -- the re-score -----------------------------------------------------------------------------


def test_the_rescore_is_bm25_with_the_agents_statistics_computed_by_hand():
    # A: falcon twice and plan once in 3 words. B: falcon once in 1 word, and `plan review`
    # said before it, each a quarter of a word: plan counts 0.25 and B's length is 1.5.
    hits = [candidate("b", "falcon", context="plan review"), candidate("a", "falcon falcon plan")]

    found = rescore(hits, query_words("falcon plan"), STATS, 10)

    a = IDF_FALCON * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 3 / 3)) + IDF_PLAN * 2.2 / (1 + 1.2)
    b = IDF_FALCON * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1.5 / 3)) + IDF_PLAN * 0.25 * 2.2 / (
        0.25 + 1.2 * (0.25 + 0.75 * 1.5 / 3)
    )
    assert [hit.id for hit in found] == ["a", "b"]
    assert [hit.score for hit in found] == pytest.approx([a, b])
    assert (a, b) == pytest.approx((2.157050, 1.533570), abs=1e-6)


def test_documents_written_before_the_length_field_average_the_candidates_lengths():
    hits = [candidate("b", "falcon", context="plan review"), candidate("a", "falcon falcon plan")]
    unknown = Statistics(4, {"falcon": 2, "plan": 1}, average_length=None)

    found = rescore(hits, query_words("falcon plan"), unknown, 10)

    # (3 + 1.5) / 2: the two candidates' own weighted lengths.
    known = Statistics(4, {"falcon": 2, "plan": 1}, average_length=2.25)
    assert scores(found) == pytest.approx(
        scores(rescore(hits, query_words("falcon plan"), known, 10))
    )


def test_inflected_query_words_count_as_the_document_words_they_stem_with():
    found = rescore(
        [candidate("a", "we deployed the service")],
        query_words("deploying"),
        Statistics(1, {"deploy": 1}, 2.0),
        5,
    )

    assert [hit.id for hit in found] == ["a"]


def test_one_hit_a_document_its_best_copy_newer_first_on_ties_and_the_best_limit():
    hits = [
        candidate("old", "falcon plan", created="2025-01-01"),
        candidate("new", "falcon plan", created="2025-03-01"),
        # A second copy of `new` not yet swept, with an older text: the better copy stands.
        candidate("new", "falcon item of a longer note", created="2025-03-01"),
        candidate("weak", "falcon and many more words of a longer note"),
    ]

    found = rescore(hits, query_words("falcon plan"), STATS, 2)

    assert [hit.id for hit in found] == ["new", "old"]
    assert found[0].score == found[1].score


def test_a_candidate_holding_no_query_word_as_the_domain_counts_it_is_left_out():
    # The engine's English stemmer finds `happiness` for `happy`; the domain's does not.
    found = rescore(
        [candidate("a", "happiness")], query_words("happy"), Statistics(1, {"happy": 1}, 1.0), 5
    )

    assert found == []
