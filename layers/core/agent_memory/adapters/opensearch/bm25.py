"""Lexical search on the shared index with each agent's own BM25 statistics.

OpenSearch's BM25 takes a word's document frequency, the number of documents and their average
length from the whole index, and the index holds every tenant (index.py says why). Its scores
would then move with what other tenants store, and a tenant could store a rare word and watch
its own score fall to learn whether other tenants' memories hold it. So no statistic of the
engine ranks anything here. The statistics are those of the agent's documents of the searched
kind (the partition `tenant + agent_id + kind`, as S3 Vectors' postings keep them), and the
score is the domain's `bm25_term` over words counted by the domain's `stems`, context words at
CONTEXT_WEIGHT (the domain's `weighted_words`, as S3 Vectors' postings count them), so the
shapes rank by one formula:

1. one search of counts, `size: 0`: the partition's documents (its total), those holding each
   query word (a `filters` aggregation, a bucket a word) and the average of the `length` field
   (`statistics_body`, `read_statistics`). One `_search`, the request every engine and AOSS
   answer, rather than a `_msearch` of a count a word;
2. the candidates: the search's filters, and one `constant_score` clause a word boosted by its
   IDF, so a candidate scores the IDFs of the words it holds (`candidates_body`);
3. the candidates scored again here, from their own text and context (`rescore`).

Pure functions of their arguments, so they are checked without an engine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...domain.search.index import Hit
from ...domain.search.lexical import bm25_term, stem, tokenize, weighted_words
from .bodies import HIT_SOURCE, hit_from_source, partition_clauses

MIN_CANDIDATES = 100
# Every field a word is found in: its text and the words said before it, each as the standard
# analyser splits it and as the English one stems it (`deploying` finds `deployed`).
WORD_FIELDS = ["text", "text.english", "context", "context.english"]
AVERAGE_LENGTH = "average_length"  # the aggregations' names in the statistics response
HOLDING = "holding"


@dataclass(frozen=True)
class QueryWord:
    """One word a lexical search ranks by: the domain's stem, as S3 Vectors' postings hold it,
    and what the engine is asked for to find it (the tokens it stems from, and the pieces of
    the query they came from)."""

    word: str
    phrases: tuple[str, ...]


@dataclass(frozen=True)
class Statistics:
    """BM25's statistics over one agent's documents of one kind."""

    documents: int
    frequencies: dict[str, int]  # word -> the documents holding it
    average_length: float | None  # None: no document has a `length` (all written before it)


def query_words(query: str) -> list[QueryWord]:
    """The distinct words of the query, as the embedded index and S3 Vectors find them
    (tokenize: no stopwords, split at `.`, `:` or `-`, diacritics folded; then stemmed). Each
    is looked for beside the whole piece of the query it came from: the engine's standard
    analyser keeps `api.example.com` or `text:deployed` whole and does not fold `Zürich`, so a
    document holding such a piece is found by the piece, not by its words. Empty: the query has
    no word to find (stopwords and punctuation only)."""
    phrases: dict[str, list[str]] = {}
    for piece in query.split():
        tokens = tokenize(piece, query=True)
        for token in tokens:
            found = phrases.setdefault(stem(token), [])
            for phrase in (token, piece) if tokens != [piece.lower()] else (token,):
                if phrase not in found:
                    found.append(phrase)
    return [QueryWord(word, tuple(found)) for word, found in phrases.items()]


def word_clause(word: QueryWord) -> dict[str, Any]:
    """Documents holding the word, as the index's analysers see it. `multi_match` analyses the
    phrase like the documents and parses no query syntax, so quotes, `AND` or `what's` are just
    words; `and` makes a piece the analyser splits (`eu-west-1`) find only documents holding all
    of it, not every document holding any of its parts."""
    matches: list[dict[str, Any]] = [
        {"multi_match": {"query": phrase, "fields": WORD_FIELDS, "operator": "and"}}
        for phrase in word.phrases
    ]
    # The domain's own words of documents not in ASCII (bodies.WORDS_FIELD): a Korean or Thai
    # word inside a run the analysers keep whole, a folded `zurich` in `Zürich`.
    matches.append({"terms": {"words": list(word.phrases)}})
    if len(matches) == 1:
        return matches[0]
    return {"bool": {"should": matches, "minimum_should_match": 1}}


def statistics_body(
    tenant: str, agent_id: str, kind: str, words: Sequence[QueryWord]
) -> dict[str, Any]:
    """One search counting the partition (its total), its documents holding each word (a bucket
    a word, named by the word's position) and their average `length`. Filtered on the partition
    only, not on the search's other filters (status, scope, labels...): BM25's statistics cover
    the agent's documents, as S3 Vectors' totals do, so a filter changes which documents are
    found, never their scores."""
    return {
        "size": 0,
        "track_total_hits": True,
        "query": {"bool": {"filter": partition_clauses(tenant, agent_id, kind)}},
        "aggs": {
            AVERAGE_LENGTH: {"avg": {"field": "length"}},
            HOLDING: {
                "filters": {"filters": {str(n): word_clause(w) for n, w in enumerate(words)}}
            },
        },
    }


def read_statistics(response: dict[str, Any], words: Sequence[QueryWord]) -> Statistics:
    """The statistics from the answer to `statistics_body`."""
    aggregations = response.get("aggregations", {})
    average = aggregations.get(AVERAGE_LENGTH, {}).get("value")
    buckets = aggregations.get(HOLDING, {}).get("buckets", {})
    return Statistics(
        documents=_total(response),
        frequencies={
            word.word: int(buckets.get(str(n), {}).get("doc_count", 0))
            for n, word in enumerate(words)
        },
        average_length=float(average) if average is not None else None,
    )


def _total(response: dict[str, Any]) -> int:
    total = response["hits"]["total"]
    # With track_total_hits an object {value, relation}; engines of old answered a number.
    return int(total["value"] if isinstance(total, dict) else total)


def idf(word: str, statistics: Statistics) -> float:
    """The word's IDF over the agent's documents: BM25 of the word once in a document of
    average length is exactly its IDF (tf (k1 + 1) / (tf + k1) = 1 at tf = 1)."""
    return bm25_term(1.0, statistics.frequencies.get(word, 0), statistics.documents, 1.0, 1.0)


def candidates_body(
    words: Sequence[QueryWord],
    statistics: Statistics,
    clauses: list[dict[str, Any]],
    limit: int,
) -> dict[str, Any] | None:
    """The candidates of a lexical search: documents passing every filter of the search that
    hold a query word, best first by the summed IDFs of the words they hold. No statistic of
    the engine enters: each word's clause is a `constant_score` boosted by its IDF over the
    agent's documents. None: no document of the agent holds any query word."""
    should = [
        {"constant_score": {"filter": word_clause(word), "boost": idf(word.word, statistics)}}
        for word in words
        if statistics.frequencies.get(word.word, 0) > 0
    ]
    if not should:
        return None
    return {
        # The candidates are ranked by the words they hold, not how often nor in how long a
        # text, and the exact score can lift a document from further down among those holding
        # the same words: four times the limit, and at least a hundred, leaves it the room
        # while keeping the response (each candidate's text) small.
        "size": max(MIN_CANDIDATES, 4 * limit),
        "track_total_hits": False,
        "_source": [*HIT_SOURCE, "text", "context"],
        "query": {"bool": {"filter": clauses, "should": should, "minimum_should_match": 1}},
    }


def rescore(
    hits: Sequence[dict[str, Any]],
    words: Sequence[QueryWord],
    statistics: Statistics,
    limit: int,
    own: bool = False,
) -> list[Hit]:
    """The candidates scored by BM25 with the agent's statistics, each word counted in the
    candidate's own text and context as S3 Vectors' postings count it; the best `limit`, one
    hit per document (a second copy, not yet swept, is the same document: index.py), newer
    first among equal scores. A candidate the engine's stemmer found but holding none of the
    query's words as the domain counts them scores nothing and is left out, as in S3 Vectors.
    `own` (history): each hit also tells what its own words scored (Hit.own)."""
    weighed = [
        weighted_words(hit["_source"].get("text", ""), hit["_source"].get("context", ""))
        for hit in hits
    ]
    average = statistics.average_length
    if average is None:
        # Every document was written before `length` was: the candidates' own lengths.
        average = sum(w.length for w in weighed) / len(weighed) if weighed else 1.0
    best: dict[str, tuple[float, float, dict[str, Any]]] = {}
    for hit, counted in zip(hits, weighed, strict=True):
        score = by_own = 0.0
        for word in words:
            tf = counted.counts.get(word.word, 0.0)
            if tf:
                # The candidate holds the word: at least one document does, whatever the
                # engine's analyser counted.
                df = max(statistics.frequencies.get(word.word, 0), 1)
                n = max(statistics.documents, df)
                score += bm25_term(tf, df, n, counted.length, average)
                if own and counted.own.get(word.word):
                    by_own += bm25_term(counted.own[word.word], df, n, counted.length, average)
        source = hit["_source"]
        held = best.get(source["doc_id"])
        if score > 0 and (held is None or score > held[0]):
            best[source["doc_id"]] = (score, by_own, source)
    found = [
        replace(hit_from_source(source, score), own=by_own if own else None)
        for score, by_own, source in best.values()
    ]
    return sorted(found, key=_best_then_newest)[:limit]


def _best_then_newest(hit: Hit) -> tuple[float, float]:
    newest = hit.created_at.timestamp() if hit.created_at is not None else -math.inf
    return (-hit.score, -newest)
