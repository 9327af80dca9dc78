"""S3 Vectors under moto for tests: an exact-search QueryVectors, which moto 5.2.5 lacks, and a
ready S3VectorsIndex.

moto 5.2.5 keeps S3 Vectors' buckets, indexes and vectors (Put/Get/List/DeleteVectors) but has no
QueryVectors. `install_query_vectors` registers one on moto's own s3vectors responder, so the
adapter's request still passes boto3's real request validation and reads what moto really
stored. It answers by exact search: the distance of every stored vector (cosine: 1 - cosine;
euclidean), the documented filter operators applied to its metadata, the `topK` nearest.

What this does NOT verify: real QueryVectors ranking (the service's search is approximate, so it
can miss a near vector exact search finds), the service's own reading of edge cases of the filter
language (a missing key under `$ne`/`$nin`, type mismatches, filters over the 2 KB of filterable
metadata), its latency, and its limits (topK at most 100 is the adapter's own cap here; moto
checks no metadata size, key count or request rate).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import boto3
import moto.s3vectors.urls as moto_urls
import pytest
from moto.core.responses import ActionResult
from moto.s3vectors.exceptions import ValidationError
from moto.s3vectors.responses import S3VectorsResponse

from agent_memory.adapters.aws import LazyClient
from agent_memory.adapters.dynamodb import DynamoStore
from agent_memory.adapters.dynamodb.postings import WordPostings
from agent_memory.adapters.s3vectors.index import S3VectorsIndex

QUERY_PATH = "{0}/QueryVectors$"
MAX_TOP_K = 100  # QueryVectors' documented limit, refused as the service refuses it


def _compare(op: str, stored: Any, operand: Any) -> bool:
    values = stored if isinstance(stored, list) else [stored]
    if op == "$eq":
        return operand in values
    if op == "$ne":
        return operand not in values
    if op == "$in":
        return any(v in operand for v in values)
    if op == "$nin":
        return not any(v in operand for v in values)
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    test: Callable[[float], bool] = {
        "$gt": lambda v: v > operand,
        "$gte": lambda v: v >= operand,
        "$lt": lambda v: v < operand,
        "$lte": lambda v: v <= operand,
    }[op]
    return any(test(v) for v in numbers)


def passes(metadata: dict[str, Any], query_filter: dict[str, Any]) -> bool:
    """Whether metadata passes an S3 Vectors filter (documented operators only)."""
    for name, condition in query_filter.items():
        if name == "$and":
            if not all(passes(metadata, c) for c in condition):
                return False
            continue
        if name == "$or":
            if not any(passes(metadata, c) for c in condition):
                return False
            continue
        if not isinstance(condition, dict):
            condition = {"$eq": condition}
        for op, operand in condition.items():
            if op == "$exists":
                if (name in metadata) != operand:
                    return False
            elif (
                op not in ("$ne", "$nin")
                and name not in metadata
                or name in metadata
                and not _compare(op, metadata[name], operand)
            ):
                return False
    return True


def _distance(metric: str, a: list[float], b: list[float]) -> float:
    if metric == "euclidean":
        return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return 1.0 - (dot / norms if norms else 0.0)


def _query_vectors(self: S3VectorsResponse) -> ActionResult:
    index = self.s3vectors_backend.get_index(
        vector_bucket_name=self._get_param("vectorBucketName"),
        index_name=self._get_param("indexName"),
        index_arn=self._get_param("indexArn"),
    )
    top_k = int(self._get_param("topK"))
    if top_k > MAX_TOP_K:
        raise ValidationError(f"topK must be at most {MAX_TOP_K}")
    query = [float(x) for x in self._get_param("queryVector")["float32"]]
    if len(query) != index.dimension:
        raise ValidationError(f"the query vector must have length {index.dimension}")
    query_filter = self._get_param("filter")
    found = []
    for vector in index.vectors.values():
        metadata = vector.metadata or {}
        if query_filter and not passes(metadata, query_filter):
            continue
        distance = _distance(index.distance_metric, query, vector.data["float32"])
        found.append((distance, vector))
    found.sort(key=lambda pair: pair[0])
    with_metadata = self._get_bool_param("returnMetadata", False)
    with_distance = self._get_bool_param("returnDistance", False)
    vectors = []
    for distance, vector in found[:top_k]:
        item: dict[str, Any] = {"key": vector.key}
        if with_metadata:
            item["metadata"] = vector.metadata
        if with_distance:
            item["distance"] = distance
        vectors.append(item)
    return ActionResult({"vectors": vectors, "distanceMetric": index.distance_metric})


def install_query_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give moto's s3vectors a QueryVectors for this test (undone with the monkeypatch)."""
    monkeypatch.setitem(moto_urls.url_paths, QUERY_PATH, S3VectorsResponse.dispatch)
    monkeypatch.setattr(S3VectorsResponse, "query_vectors", _query_vectors, raising=False)


@contextmanager
def s3vectors_index(
    region: str,
    *,
    table: str = "agent-memory-s3v",
    bucket: str = "agent-memory-vectors",
    dimensions: int = 4,
    model_id: str | None = "test-model",
) -> Iterator[S3VectorsIndex]:
    """A ready S3VectorsIndex inside an active moto mock (with install_query_vectors applied):
    its table made, its vector bucket made, no agent index yet."""
    DynamoStore(table, region).create_table()
    client = boto3.client("s3vectors", region_name=region)
    client.create_vector_bucket(vectorBucketName=bucket)
    yield S3VectorsIndex(
        LazyClient("s3vectors", region, client=client),
        bucket,
        dimensions,
        WordPostings(table, region),
        model_id=model_id,
    )
