"""AGENT_MEMORY_SEARCH_BACKEND picks the cloud's search index; a choice missing what it needs
fails at start."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent_memory.adapters.dynamodb.entity_links import DynamoEntityLinks
from agent_memory.adapters.opensearch.index import OpenSearchIndex
from agent_memory.adapters.s3vectors.index import S3VectorsIndex
from agent_memory.bootstrap import build_search
from agent_memory.domain.search.embeddings import Embedder
from agent_memory.domain.search.links import LinkedIndex
from agent_memory.settings import Settings

CLOUD = {"store": "dynamodb", "table_name": "agent-memory"}


@pytest.fixture(autouse=True)
def _region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-1")  # the Lambda runtime's (region is an alias)


class _Embedder(Embedder):
    model_id = "test-model"
    dimensions = 4

    def embed(self, texts, *, query=False):  # type: ignore[no-untyped-def]
        raise AssertionError("building the search embeds nothing")


@pytest.mark.parametrize(
    "missing",
    [
        {"s3vectors_bucket": None},
        {"table_name": None, "store": "sqlite"},
    ],
)
def test_s3_vectors_without_its_bucket_or_table_is_refused_at_start(missing: dict) -> None:  # type: ignore[type-arg]
    values = {**CLOUD, "search_backend": "s3-vectors", "s3vectors_bucket": "vec", **missing}
    with pytest.raises(ValidationError, match="AGENT_MEMORY_SEARCH_BACKEND=s3-vectors"):
        Settings(**values)


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(ValidationError, match="search_backend"):
        Settings(**CLOUD, search_backend="pinecone")


def test_the_setting_picks_the_index_and_builds_no_client() -> None:
    s3v = Settings(**CLOUD, search_backend="s3-vectors", s3vectors_bucket="vec")
    index = build_search(s3v, store=object(), embedder=_Embedder()).index  # type: ignore[arg-type]
    # Either index keeps its entity links in the table beside it.
    assert isinstance(index, LinkedIndex) and isinstance(index.inner, S3VectorsIndex)
    assert isinstance(index.links, DynamoEntityLinks)

    aoss = Settings(**CLOUD, opensearch_endpoint="https://abc.eu-west-1.aoss.amazonaws.com")
    assert aoss.search_backend == "opensearch-serverless"  # the default, as the template's
    index = build_search(aoss, store=object(), embedder=_Embedder()).index  # type: ignore[arg-type]
    assert isinstance(index, LinkedIndex) and isinstance(index.inner, OpenSearchIndex)
