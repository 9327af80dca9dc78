"""S3VectorsIndex: the SearchIndex port on Amazon S3 Vectors (meaning) and word postings in the
DynamoDB table (words).

One vector index per agent in one vector bucket, made on the agent's first document: S3 Vectors
bills a query by the size of the index it reads, so a shared index would bill every agent's
query for every tenant's vectors (docs/cost.md). An index name is a digest of tenant and agent
(names are 3-63 of a-z, 0-9, `-` and `.`, which agent ids are not). A vector's key is
`{kind}|{id}`; its filterable metadata is `filters.doc_fields` plus `model_id`; its version and
created_at ride along as non-filterable metadata.

Versions: the postings' head (DynamoDB, conditional) decides whether a document is newer; then
the vector's stored version is read (GetVectors) and an older one is never written over a newer
one. S3 Vectors has no conditional put, so two writers of one document racing between that read
and their PutVectors can leave the older vector; every hit is re-read from the store (status,
version, preview, scope) before it is used, so it can rank a document, never leak one.

boto3 is imported and the client built on the first request (adapters/aws.LazyClient), so
importing this module costs a cold start nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, NoReturn

from ...domain.kernel.errors import StorageUnavailable
from ...domain.search.index import (
    DocKind,
    Hit,
    IndexDoc,
    IndexFilter,
    SearchIndex,
    StoredDoc,
    check_dimensions,
    newest_versions,
)
from ..aws import LazyClient
from ..dynamodb.postings import WordPostings
from .filters import doc_fields, vector_filter

logger = logging.getLogger(__name__)

MAX_TOP_K = 100  # QueryVectors' topK
GET_KEYS = 100  # GetVectors' keys a request
PUT_VECTORS = 500  # PutVectors' and DeleteVectors' vectors a request
# Returned with a hit but never filtered on: kept out of the 2 KB of filterable metadata.
NON_FILTERABLE = ["version", "created_at"]


def index_name(tenant: str, agent_id: str) -> str:
    # JSON keeps any tenant and agent id apart, whatever characters they hold.
    digest = hashlib.sha256(json.dumps([tenant, agent_id]).encode()).hexdigest()
    return f"agent-{digest[:56]}"


def bucket_name(bucket: str) -> str:
    """A vector bucket's name from its name or its ARN (`arn:...:bucket/{name}`; the template
    hands the functions the ARN, which is what CloudFormation returns)."""
    return bucket.split(":bucket/", 1)[1] if bucket.startswith("arn:") else bucket


def vector_key(kind: str, doc_id: str) -> str:
    return f"{kind}|{doc_id}"


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _code(exc: Exception) -> str:
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))


def _unavailable(action: str, exc: Exception) -> NoReturn:
    logger.warning("s3vectors request failed", extra={"action": action, "error": _code(exc)})
    raise StorageUnavailable("the search index is unavailable") from exc


class S3VectorsIndex(SearchIndex):
    """The SearchIndex port on one S3 vector bucket (`bucket`: its name or ARN) and word postings.

    `client` is a LazyClient of `s3vectors` (tests pass one holding a moto client). `dimensions`
    is the vector size each agent's index is made with; `model_id`, when given, limits vector
    searches to documents embedded by that model, as the other adapters do.
    """

    def __init__(
        self,
        client: LazyClient,
        bucket: str,
        dimensions: int,
        postings: WordPostings,
        *,
        model_id: str | None = None,
    ) -> None:
        self._client = client
        self._bucket = bucket_name(bucket)
        self._dimensions = dimensions
        self._postings = postings
        self._model_id = model_id

    # -- writes ---------------------------------------------------------------------------

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        for doc in docs:
            self._check_vector(doc.vector)
        by_agent: dict[tuple[str, str], list[IndexDoc]] = {}
        for doc in newest_versions(docs):
            if self._postings.write(doc):
                by_agent.setdefault((doc.tenant, doc.agent_id), []).append(doc)
        for (tenant, agent_id), written in by_agent.items():
            self._put_vectors(index_name(tenant, agent_id), written)

    def _put_vectors(self, index: str, docs: Sequence[IndexDoc]) -> None:
        keep_vector = [vector_key(d.kind, d.id) for d in docs if d.vector is None]
        stored = self._stored(
            index, [vector_key(d.kind, d.id) for d in docs], data=bool(keep_vector)
        )
        vectors: list[dict[str, Any]] = []
        for doc in docs:
            key = vector_key(doc.kind, doc.id)
            held = stored.get(key)
            held_meta = (held or {}).get("metadata") or {}
            if held is not None and int(held_meta.get("version", 0)) > doc.version:
                continue  # an older version never overwrites a newer one
            data, model_id = doc.vector, doc.model_id
            if data is None:
                if held is None or not held.get("data"):
                    continue  # words only until the document's vector arrives
                # A status change keeps its text, so it keeps the vector too (as the others).
                data, model_id = held["data"]["float32"], held_meta.get("model_id")
            metadata: dict[str, Any] = {
                **doc_fields(doc),
                "version": doc.version,
                "created_at": doc.created_at.isoformat(),
            }
            if model_id is not None:
                metadata["model_id"] = model_id
            vectors.append(
                {"key": key, "data": {"float32": [float(x) for x in data]}, "metadata": metadata}
            )
        for chunk in _chunks(vectors, PUT_VECTORS):
            self._put(index, list(chunk))

    def _put(self, index: str, vectors: list[dict[str, Any]]) -> None:
        """PutVectors, making the agent's index when this is its first document."""
        from botocore.exceptions import ClientError

        client = self._client.get()
        try:
            client.put_vectors(vectorBucketName=self._bucket, indexName=index, vectors=vectors)
            return
        except ClientError as exc:
            if _code(exc) != "NotFoundException":
                _unavailable("put_vectors", exc)
        self._create_index(index)
        try:
            client.put_vectors(vectorBucketName=self._bucket, indexName=index, vectors=vectors)
        except ClientError as exc:
            _unavailable("put_vectors", exc)

    def _create_index(self, index: str) -> None:
        from botocore.exceptions import ClientError

        try:
            self._client.get().create_index(
                vectorBucketName=self._bucket,
                indexName=index,
                dataType="float32",
                dimension=self._dimensions,
                # Vectors are unit length: cosine distance is 1 - the cosine the port returns.
                distanceMetric="cosine",
                metadataConfiguration={"nonFilterableMetadataKeys": NON_FILTERABLE},
            )
            logger.info("vector index created", extra={"index": index})
        except ClientError as exc:
            if _code(exc) != "ConflictException":  # made by another writer meanwhile
                _unavailable("create_index", exc)

    def _stored(self, index: str, keys: Sequence[str], *, data: bool) -> dict[str, dict[str, Any]]:
        """The stored vectors of these keys (with metadata; with data when asked)."""
        from botocore.exceptions import ClientError

        found: dict[str, dict[str, Any]] = {}
        for chunk in _chunks(keys, GET_KEYS):
            try:
                response = self._client.get().get_vectors(
                    vectorBucketName=self._bucket,
                    indexName=index,
                    keys=list(chunk),
                    returnData=data,
                    returnMetadata=True,
                )
            except ClientError as exc:
                if _code(exc) == "NotFoundException":
                    return {}  # no index yet: nothing stored
                _unavailable("get_vectors", exc)
            for vector in response.get("vectors", []):
                found[vector["key"]] = vector
        return found

    def delete(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        from botocore.exceptions import ClientError

        unique = list(dict.fromkeys(ids))
        if not unique:
            return
        index = index_name(tenant, agent_id)
        for chunk in _chunks([vector_key(kind, i) for i in unique], PUT_VECTORS):
            try:
                self._client.get().delete_vectors(
                    vectorBucketName=self._bucket, indexName=index, keys=list(chunk)
                )
            except ClientError as exc:
                if _code(exc) == "NotFoundException":
                    break  # no index: no vectors
                _unavailable("delete_vectors", exc)
        self._postings.delete(tenant, agent_id, kind, unique)

    def delete_agent(self, tenant: str, agent_id: str) -> None:
        from botocore.exceptions import ClientError

        try:
            self._client.get().delete_index(
                vectorBucketName=self._bucket, indexName=index_name(tenant, agent_id)
            )
        except ClientError as exc:
            if _code(exc) != "NotFoundException":
                _unavailable("delete_index", exc)
        self._postings.delete_agent(tenant, agent_id)

    def stored(self, tenant: str | None, agent_id: str | None) -> Iterator[StoredDoc] | None:
        """An agent's documents (ListVectors of its index). Not every agent's: an index is
        named by a digest of tenant and agent, which cannot be read back, so a sweep names
        each agent it knows of."""
        from botocore.exceptions import ClientError

        if tenant is None or agent_id is None:
            return None
        index = index_name(tenant, agent_id)

        def listed() -> Iterator[StoredDoc]:
            token = None
            while True:
                page: dict[str, str] = {"nextToken": token} if token else {}
                try:
                    response = self._client.get().list_vectors(
                        vectorBucketName=self._bucket,
                        indexName=index,
                        returnMetadata=True,
                        **page,
                    )
                except ClientError as exc:
                    if _code(exc) == "NotFoundException":
                        return  # no index: no documents
                    _unavailable("list_vectors", exc)
                for vector in response.get("vectors", []):
                    kind, _, doc_id = str(vector["key"]).partition("|")
                    session = (vector.get("metadata") or {}).get("session_id")
                    yield StoredDoc(tenant, agent_id, kind, doc_id, session)  # type: ignore[arg-type]
                token = response.get("nextToken")
                if not token:
                    return

        return listed()

    # -- queries --------------------------------------------------------------------------

    def lexical(
        self, tenant: str, agent_id: str, query: str, where: IndexFilter, limit: int
    ) -> list[Hit]:
        return self._postings.search(tenant, agent_id, query, where, limit)

    def vector(
        self, tenant: str, agent_id: str, vector: Sequence[float], where: IndexFilter, limit: int
    ) -> list[Hit]:
        from botocore.exceptions import ClientError

        self._check_vector(vector)
        query_filter = vector_filter(where, self._model_id)
        if query_filter is None or limit < 1:
            return []
        try:
            response = self._client.get().query_vectors(
                vectorBucketName=self._bucket,
                indexName=index_name(tenant, agent_id),
                queryVector={"float32": [float(x) for x in vector]},
                topK=min(limit, MAX_TOP_K),  # the service's most; the port asks for a bound
                filter=query_filter,
                returnMetadata=True,
                returnDistance=True,
            )
        except ClientError as exc:
            if _code(exc) == "NotFoundException":
                return []  # the agent has no document yet
            _unavailable("query_vectors", exc)
        hits = []
        for found in response.get("vectors", []):
            metadata = found.get("metadata") or {}
            created = metadata.get("created_at")
            hits.append(
                Hit(
                    str(metadata.get("doc_id") or found["key"].split("|", 1)[1]),
                    # Cosine distance is 1 - cosine; clamped against float error.
                    max(-1.0, min(1.0, 1.0 - float(found["distance"]))),
                    datetime.fromisoformat(created) if created else None,
                    metadata.get("session_id"),
                )
            )
        return hits

    def _check_vector(self, vector: Sequence[float] | None) -> None:
        check_dimensions(vector, self._dimensions)


def connect(
    bucket: str,
    region: str,
    table_name: str,
    dimensions: int,
    *,
    model_id: str | None = None,
    host: str | None = None,
) -> S3VectorsIndex:
    """An S3VectorsIndex on a vector bucket and the table's word postings. Sends nothing: the
    s3vectors client is built on the first request."""
    return S3VectorsIndex(
        LazyClient("s3vectors", region, connect_timeout=2, read_timeout=5),
        bucket,
        dimensions,
        WordPostings(table_name, region, host),
        model_id=model_id,
    )
