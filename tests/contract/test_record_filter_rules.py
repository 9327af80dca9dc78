"""Every place that applies the record filter rules agrees on one table of cases
(record_filter_cases.py).

`RecordQuery.matches` is the definition. The stores' `find_records` (SQLite's SQL, DynamoDB's
pre-filter and re-check) run the table in test_records_contract.py. Here: the definition itself,
and the search indexes' pre-filters, reached through `index_filter` (the one translation of a
RecordQuery into an IndexFilter) and `record_doc` (the one translation of a record into its
document): EmbeddedIndex's SQL (lexical) and numpy mask (vector), and OpenSearchIndex's bool
filter (lexical on osmem-server, which has no k-NN; the k-NN request is checked to carry the
very filter the lexical search ran under, and its shape in tests/unit/test_opensearch_bodies.py).

An index keeps no pin, so `pinned` is left to the re-check that follows every search: on the
index paths a case is expected to find what the same query without `pinned` matches.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest
from index_model import INDEX_DIMENSIONS, INDEX_MODEL
from record_filter_cases import FIND_CASES, filter_records

from agent_memory.adapters.opensearch import OpenSearchIndex
from agent_memory.adapters.sqlite.search import EmbeddedIndex
from agent_memory.domain.records.models import Record, RecordQuery
from agent_memory.domain.records.service import index_filter
from agent_memory.domain.search.index import SearchIndex
from agent_memory.domain.search.service import record_doc

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

TENANT = "acme"
AGENT = "teams/web"
CASE_IDS = [case[0] for case in FIND_CASES]


def newest_first(records: list[Record], query: RecordQuery) -> list[str]:
    return sorted((r.id for r in records if query.matches(r)), reverse=True)


@pytest.mark.parametrize(("query", "expected"), [c[1:] for c in FIND_CASES], ids=CASE_IDS)
def test_the_definition_gives_every_case_of_the_table(
    build: Build, query: RecordQuery, expected: list[str]
) -> None:
    assert newest_first(filter_records(build), query) == expected


def _indexed(index: SearchIndex, records: list[Record], with_vectors: bool) -> None:
    docs = [record_doc(record) for record in records]
    if with_vectors:
        # One direction for all: the filter alone decides which come back.
        docs = [replace(d, vector=[1.0, 0.0, 0.0], model_id=INDEX_MODEL) for d in docs]
    index.upsert(docs)


@pytest.fixture(params=["lexical", "vector"])
def path(request: pytest.FixtureRequest, search_index: SearchIndex) -> str:
    """Each way a search reaches an index's filter; OpenSearch's k-NN is not run (see above)."""
    if request.param == "vector" and not isinstance(search_index, EmbeddedIndex):
        pytest.skip("osmem-server has no k-NN: its request is checked by the test below")
    return str(request.param)


@pytest.mark.parametrize(("query", "expected"), [c[1:] for c in FIND_CASES], ids=CASE_IDS)
def test_each_index_path_pre_filters_as_the_definition_does(
    search_index: SearchIndex,
    path: str,
    build: Build,
    query: RecordQuery,
    expected: list[str],
) -> None:
    records = filter_records(build, tenant=TENANT, agent_id=AGENT)
    _indexed(search_index, records, with_vectors=path == "vector")
    where = index_filter(query)

    if path == "lexical":
        # Every record's text holds "summary" (conftest Build.record).
        hits = search_index.lexical(TENANT, AGENT, "summary", where, 100)
    else:
        hits = search_index.vector(TENANT, AGENT, [1.0, 0.0, 0.0], where, 100)

    unpinned = query.model_copy(update={"pinned": None})
    assert sorted((h.id for h in hits), reverse=True) == newest_first(records, unpinned)
    if query.pinned is None:
        assert sorted((h.id for h in hits), reverse=True) == expected


class _Recording:
    """Stands in for the OpenSearch client: keeps each search body, finds nothing. The lexical
    search's statistics (a search of `size: 0`) count a document holding every word, so it goes
    on to its search."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def search(self, index: str, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("size") == 0:
            words = body["aggs"]["holding"]["filters"]["filters"]
            buckets = {name: {"doc_count": 1} for name in words}
            return {
                "hits": {"total": {"value": 1}},
                "aggregations": {"holding": {"buckets": buckets}},
            }
        self.bodies.append(body)
        return {"hits": {"hits": []}}


@pytest.mark.parametrize("query", [c[1] for c in FIND_CASES], ids=CASE_IDS)
def test_opensearch_knn_runs_under_the_filter_its_lexical_search_does(query: RecordQuery) -> None:
    # osmem-server has no k-NN: what the engine is asked is checked instead. The lexical
    # search's filter is the one the table checked on the engine above.
    client = _Recording()
    index = OpenSearchIndex(client, "memories", INDEX_DIMENSIONS, model_id=INDEX_MODEL)
    where = index_filter(query)

    index.lexical(TENANT, AGENT, "summary", where, 10)
    index.vector(TENANT, AGENT, [1.0, 0.0, 0.0], where, 10)

    if not client.bodies:
        # Only a filter no scope can pass sends nothing at all.
        assert not (where.include_agent or where.include_all_sessions or where.session_id)
        return
    lexical, knn = client.bodies
    model = {"term": {"model_id": INDEX_MODEL}}
    assert knn["query"]["knn"]["vector"]["filter"]["bool"]["filter"] == [
        *lexical["query"]["bool"]["filter"],
        model,
    ]
