"""The S3 Vectors backend filters a document twice: by a QueryVectors metadata filter (vectors)
and in Python (word postings). Both must let the same documents through."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime

import pytest

from agent_memory.adapters.s3vectors.filters import doc_fields, matches, vector_filter
from agent_memory.adapters.s3vectors.index import bucket_name, index_name
from agent_memory.domain.search.index import IndexDoc, IndexFilter
from s3vectors_moto import passes

DOCS = [
    IndexDoc(
        tenant="t",
        agent_id="a",
        kind=kind,
        id=doc_id,
        version=1,
        text="x",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        scope=scope,
        session_id=session,
        status=status,
        preview=preview,
        record_kind=record_kind,
        labels=labels,
    )
    for kind, doc_id, (scope, session), status, preview, record_kind, labels in itertools.product(
        ("record", "event"),
        ("r1", "r2"),
        (("agent", None), ("session", "s1"), ("session", "s2")),
        ("ACTIVE", "DELETED"),
        (False, True),
        (None, "fact"),
        ({}, {"topic": "ops"}, {"topic": "ops", "team": "web"}),
    )
]

FILTERS = [
    IndexFilter(),
    IndexFilter(kind="event", session_id="s1"),
    IndexFilter(include_agent=False, include_all_sessions=True),
    IndexFilter(include_agent=False, session_id="s2"),
    IndexFilter(include_agent=False),
    IndexFilter(statuses=frozenset({"ACTIVE", "DELETED"}), preview="any"),
    IndexFilter(record_kinds=frozenset({"fact"}), preview="only"),
    IndexFilter(labels={"topic": "ops", "team": "web"}),
    IndexFilter(labels={"topic": "dev"}),
    IndexFilter(ids=frozenset({"r2"}), session_id="s1"),
]


# Numbered ids: a filter's repr shows frozensets, whose order changes with each process's
# string hashing, and xdist's workers must collect the same ids.
@pytest.mark.parametrize("where", FILTERS, ids=[f"filter{n}" for n in range(len(FILTERS))])
def test_postings_and_vectors_let_the_same_documents_through(where: IndexFilter) -> None:
    query_filter = vector_filter(where, "m1")
    through = []
    for doc in DOCS:
        fields = doc_fields(doc)
        by_vector = query_filter is not None and passes({**fields, "model_id": "m1"}, query_filter)
        assert matches(fields, where) == by_vector, (doc, where)
        through.append(by_vector)
    assert not all(through)  # every filter drops some of DOCS


def test_most_filters_keep_some_documents() -> None:
    # So the comparison above is not only of documents both sides drop.
    kept = [where for where in FILTERS if any(matches(doc_fields(d), where) for d in DOCS)]
    assert len(kept) == len(FILTERS) - 2  # all but `include_agent=False` and `topic=dev`


def test_a_vector_of_another_model_does_not_pass() -> None:
    query_filter = vector_filter(IndexFilter(), "m1")
    assert query_filter is not None
    assert not passes({**doc_fields(DOCS[0]), "model_id": "m2"}, query_filter)


def test_names_fit_s3_vectors_rules() -> None:
    name = index_name("tenant-1", "teams/Web/Releases")
    assert re.fullmatch(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]", name)
    assert name != index_name("tenant-1", "teams/web/releases")
    assert index_name("a", "b\x00c") != index_name("a\x00b", "c")  # no two pairs share a name
    arn = "arn:aws:s3vectors:us-east-1:123456789012:bucket/stack-vectors"
    assert bucket_name(arn) == bucket_name("stack-vectors") == "stack-vectors"
