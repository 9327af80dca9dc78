"""Every place that applies the record filter rules agrees on one table of cases
(record_filter_cases.py).

`RecordQuery.matches` is the definition. The stores' `find_records` (SQLite's SQL, DynamoDB's
pre-filter and re-check) run the table in test_records_contract.py. Here: the definition itself,
and the search indexes' pre-filters, reached through `index_filter` (the one translation of a
RecordQuery into an IndexFilter) and `record_doc` (the one translation of a record into its
document): EmbeddedIndex's SQL (lexical) and numpy mask (vector), and OpenSearchIndex's bool
filter (lexical on osmem-server, which has no k-NN; the k-NN body carries the same clauses,
checked in tests/unit/test_opensearch_bodies.py).

An index keeps no pin, so `pinned` is left to the re-check that follows every search: on the
index paths a case is expected to find what the same query without `pinned` matches.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pytest
from index_model import INDEX_MODEL
from record_filter_cases import FIND_CASES, filter_records

from agent_memory.adapters.sqlite.search import EmbeddedIndex
from agent_memory.domain.records import Record, RecordQuery
from agent_memory.domain.search.index import SearchIndex
from agent_memory.domain.search.service import record_doc
from agent_memory.domain.services.records import index_filter

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
        pytest.skip("osmem-server has no k-NN; the k-NN body's filter is checked as a unit")
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
