"""OpenSearchIndex: the SearchIndex port on an Amazon OpenSearch Serverless (AOSS) vector collection.

One shared index per collection. Every document carries its tenant and agent, and every query
filters on both (term filters in `bool.filter`, inside the k-NN clause for vectors). AOSS bills
by OCU per collection, not per index, and caps the indexes a collection holds, so an index per
tenant would hit that cap and buy nothing. A tenant's label names never become mapping fields
either: labels are kept as `name=value` keywords, so the mapping stays fixed (`dynamic: strict`)
however many tenants name however many labels.

What AOSS vector collections allow shapes the writes. They refuse a document id chosen by the
client (`PUT <index>/_doc/<id>`, or `_id` in a bulk `index` action: "Document ID is not
supported in create/index operation request"), upserts, `_update`, scripts and
`_delete_by_query`, and a written document becomes searchable only after the collection's
refresh interval (documented as 60 s). So:

- A document's identity is the keyword field `key` = `{tenant}|{agent_id}|{kind}|{id}` (tenants,
  agent ids and kinds hold no `|`, so the key is unambiguous); AOSS assigns `_id`.
- `upsert` reads the copies of each key it can see, skips a document whose stored version is
  newer (or the same version with the same content), writes a new copy otherwise, and then
  deletes the copies it saw. A copy written less than a refresh interval earlier is not yet
  visible, so it can survive beside the new one; queries return one hit per id, and the service
  re-reads every hit from the store (status, version, preview, scope) before using it, so a
  stale copy never leaks. It is swept when the key is written again.
- `delete` and `delete_agent` search for the copies and delete them by `_id` in bulk.

opensearch-py is imported only when a client is built or an error is translated, so importing
this module costs nothing.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
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
from .bm25 import candidates_body, query_words, read_statistics, rescore, statistics_body
from .bodies import (
    ADDED_FIELDS,
    Copy,
    bulk_chunks,
    cosine_from_score,
    doc_key,
    document_source,
    filter_clauses,
    hit_from_source,
    index_body,
    knn_body,
)

logger = logging.getLogger(__name__)

PAGE_SIZE = 1000  # copies read per search while upserting or deleting
KEYS_PER_SEARCH = 500  # terms in one `terms` filter on `key`


def _unavailable(action: str, exc: Exception) -> NoReturn:
    logger.warning(
        "opensearch request failed",
        extra={
            "action": action,
            "error": type(exc).__name__,
            "status": getattr(exc, "status_code", None),
        },
    )
    raise StorageUnavailable("the search index is unavailable") from exc


class OpenSearchIndex(SearchIndex):
    """The SearchIndex port on one OpenSearch index (AOSS vector collection, or any OpenSearch).

    `client` is an `opensearchpy.OpenSearch` (see `connect` for AOSS with SigV4). `dimensions` is
    the vector size the index is created with. `model_id`, when given, limits vector searches to
    documents embedded by that model (the port's `vector()` takes no model, as EmbeddedIndex,
    which is told its model the same way). `refresh` makes every write visible to search at once;
    AOSS refreshes on its own schedule, so it is for tests against a plain engine.
    """

    def __init__(
        self,
        client: Any,
        index_name: str,
        dimensions: int,
        *,
        model_id: str | None = None,
        refresh: bool = False,
    ) -> None:
        self._client = client
        self._index = index_name
        self._dimensions = dimensions
        self._model_id = model_id
        self._refresh = refresh
        self._index_ready = False
        # False when an existing index could not gain the `context` field: documents are then
        # written without it (found by their own words only) rather than refused.
        self._with_context = True
        # (with_length, with_words) of document_source: False when it could not gain `length`:
        # written without it, the statistics average the lengths of the documents that have one
        # (bm25.rescore); likewise `words`.
        self._optional_fields = (True, True)

    @property
    def index_name(self) -> str:
        return self._index

    # -- the index ------------------------------------------------------------------------

    def create_index(self) -> None:
        """Create the index with its mapping; an index that already exists only gains the
        fields added since it was made."""
        if self._dimensions < 1:
            raise ValueError("the index needs a vector dimension of at least 1")
        from opensearchpy.exceptions import OpenSearchException, RequestError

        try:
            self._client.indices.create(index=self._index, body=index_body(self._dimensions))
        except RequestError as exc:
            if exc.error != "resource_already_exists_exception":
                _unavailable("create_index", exc)
            self._add_fields()
        except OpenSearchException as exc:
            _unavailable("create_index", exc)
        self._index_ready = True

    def _add_fields(self) -> None:
        """An index made by an earlier version gets the fields added since (a mapping only
        ever gains fields; adding one that is there already changes nothing). One request a
        field, so a field refused does not keep the other out."""
        self._with_context, *optional = (self._add_field(*field) for field in ADDED_FIELDS)
        self._optional_fields = (optional[0], optional[1])

    def _add_field(self, name: str, mapping: dict[str, Any], without: str) -> bool:
        """False when refused (no aoss:UpdateIndex, or the field mapped otherwise): indexing
        goes on without the field rather than stopping; `without` says what that costs."""
        from opensearchpy.exceptions import OpenSearchException

        try:
            self._client.indices.put_mapping(
                index=self._index, body={"properties": {name: dict(mapping)}}
            )
        except OpenSearchException as exc:
            logger.warning(
                "the search index did not take a new field",
                extra={"index": self._index, "field": name, "without": without, "error": str(exc)},
            )
            return False
        return True

    # -- writes ---------------------------------------------------------------------------

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        if not docs:
            return
        for doc in docs:
            self._check_vector(doc.vector)
        if not self._index_ready:
            # A bulk write to a missing index would create it with a guessed mapping.
            self.create_index()
        latest = {doc_key(d.tenant, d.agent_id, d.kind, d.id): d for d in newest_versions(docs)}
        stored = self._copies(
            list(latest), with_vectors=any(d.vector is None for d in latest.values())
        )
        writes: dict[str, dict[str, Any]] = {}
        stale: dict[str, list[str]] = {}
        for key, doc in latest.items():
            copies = stored.get(key, [])
            newest = max(copies, key=lambda c: c.version, default=None)
            if newest is not None and newest.version > doc.version:
                # An older version never overwrites a newer one.
                stale[key] = [c.id for c in copies if c.version < newest.version]
                continue
            vector, model_id = doc.vector, doc.model_id
            if vector is None and newest is not None and newest.vector is not None:
                # A status change keeps its text, so it keeps the vector too (as EmbeddedIndex).
                vector, model_id = newest.vector, newest.model_id
            if not self._with_context and doc.context:
                doc = dataclasses.replace(doc, context="")
            source = document_source(key, doc, vector, model_id, *self._optional_fields)
            same = next(
                (c for c in copies if c.version == doc.version and c.digest == source["digest"]),
                None,
            )
            if same is not None:
                stale[key] = [c.id for c in copies if c.id != same.id]
            else:
                writes[key] = source
                stale[key] = [c.id for c in copies]
        failed = self._index_sources(list(writes.values()))
        # A key whose new copy was refused keeps its old copies.
        self._delete_ids([i for key, ids in stale.items() if key not in failed for i in ids])
        if failed:
            raise StorageUnavailable("the search index refused some documents")

    def delete(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        keys = [doc_key(tenant, agent_id, kind, doc_id) for doc_id in dict.fromkeys(ids)]
        if not keys:
            return
        copies = self._copies(keys, with_vectors=False)
        self._delete_ids([c.id for found in copies.values() for c in found])

    def delete_agent(self, tenant: str, agent_id: str) -> None:
        query = [{"term": {"tenant": tenant}}, {"term": {"agent_id": agent_id}}]
        for page in self._pages(query, source=False):
            self._delete_ids([hit["_id"] for hit in page])

    def stored(self, tenant: str | None, agent_id: str | None) -> Iterator[StoredDoc]:
        # Sorted by key, so the copies of one document come together and are told once.
        named = {"tenant": tenant, "agent_id": agent_id}
        query = [{"term": {k: v}} for k, v in named.items() if v is not None]
        fields = ["key", "tenant", "agent_id", "kind", "doc_id", "session_id"]
        last = None
        for hit in (hit for page in self._pages(query, source=fields) for hit in page):
            found = hit["_source"]
            if found["key"] != last:
                last = found["key"]
                yield StoredDoc(*(found.get(f) for f in fields[1:]))  # type: ignore[arg-type]

    # -- queries --------------------------------------------------------------------------

    def lexical(
        self, tenant: str, agent_id: str, query: str, where: IndexFilter, limit: int
    ) -> list[Hit]:
        """BM25 with the statistics of the agent's own documents of the kind, never the shared
        index's (bm25.py): one search of counts, then one search for the candidates."""
        clauses = filter_clauses(tenant, agent_id, where)
        words = query_words(query)
        if clauses is None or limit < 1 or not words:
            return []  # as EmbeddedIndex: a query of stopwords or punctuation finds nothing
        counted = self._search(statistics_body(tenant, agent_id, where.kind, words), "statistics")
        if counted is None:
            return []  # the index does not exist: nothing is indexed yet
        statistics = read_statistics(counted, words)
        body = candidates_body(words, statistics, clauses, limit)
        if body is None:
            return []  # no document of the agent holds a word of the query
        response = self._search(body, "lexical")
        hits = response["hits"]["hits"] if response else []
        return rescore(hits, words, statistics, limit, own=where.kind == "event")

    def vector(
        self, tenant: str, agent_id: str, vector: Sequence[float], where: IndexFilter, limit: int
    ) -> list[Hit]:
        self._check_vector(vector)
        clauses = filter_clauses(tenant, agent_id, where)
        if clauses is None or limit < 1:
            return []
        if self._model_id is not None:
            clauses.append({"term": {"model_id": self._model_id}})
        return self._hits(knn_body(vector, clauses, limit), "vector", cosine_from_score)

    # -- primitives -----------------------------------------------------------------------

    def _check_vector(self, vector: Sequence[float] | None) -> None:
        check_dimensions(vector, self._dimensions)

    def _hits(
        self, body: dict[str, Any], action: str, score: Callable[[float], float]
    ) -> list[Hit]:
        response = self._search(body, action)
        hits: list[Hit] = []
        seen: set[str] = set()
        for hit in response["hits"]["hits"] if response else ():
            source = hit["_source"]
            if source["doc_id"] in seen:
                continue  # a second copy of a document, not yet swept (see the module doc)
            seen.add(source["doc_id"])
            hits.append(hit_from_source(source, score(float(hit["_score"]))))
        return hits

    def stored_vectors(
        self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]
    ) -> dict[str, tuple[list[float], str]]:
        keys = {doc_key(tenant, agent_id, kind, i): i for i in ids}
        found: dict[str, tuple[list[float], str]] = {}
        for key, copies in self._copies(list(keys), with_vectors=True).items():
            newest = max(copies, key=lambda c: c.version)
            if newest.vector is not None and newest.model_id is not None:
                found[keys[key]] = (newest.vector, newest.model_id)
        return found

    def _copies(self, keys: Sequence[str], *, with_vectors: bool) -> dict[str, list[Copy]]:
        """The copies of each key a search can see now."""
        fields = ["key", "version", "digest", "model_id"] + (["vector"] if with_vectors else [])
        found: dict[str, list[Copy]] = defaultdict(list)
        for start in range(0, len(keys), KEYS_PER_SEARCH):
            query = [{"terms": {"key": list(keys[start : start + KEYS_PER_SEARCH])}}]
            for page in self._pages(query, source=fields):
                for hit in page:
                    source = hit["_source"]
                    found[source["key"]].append(
                        Copy(
                            id=hit["_id"],
                            version=int(source["version"]),
                            digest=source.get("digest"),
                            model_id=source.get("model_id"),
                            vector=source.get("vector"),
                        )
                    )
        return found

    def _pages(
        self, clauses: list[dict[str, Any]], *, source: list[str] | bool
    ) -> Iterator[list[dict[str, Any]]]:
        """Every matching copy, a page at a time. search_after on (key, copy), unique per copy,
        rather than scroll or point in time, which AOSS does not offer everywhere."""
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {
                "size": PAGE_SIZE,
                "track_total_hits": False,
                "_source": source,
                "query": {"bool": {"filter": clauses}},
                "sort": [{"key": "asc"}, {"copy": "asc"}],
            }
            if after is not None:
                body["search_after"] = after
            response = self._search(body, "scan")
            hits: list[dict[str, Any]] = response["hits"]["hits"] if response else []
            if hits:
                yield hits
            if len(hits) < PAGE_SIZE:
                return
            after = hits[-1]["sort"]

    def _search(self, body: dict[str, Any], action: str) -> dict[str, Any] | None:
        """The search response, or None when the index does not exist yet (nothing indexed)."""
        from opensearchpy.exceptions import NotFoundError, OpenSearchException

        try:
            response: dict[str, Any] = self._client.search(index=self._index, body=body)
        except NotFoundError:
            return None
        except OpenSearchException as exc:
            _unavailable(action, exc)
        return response

    def _index_sources(self, sources: Sequence[dict[str, Any]]) -> set[str]:
        """Write new copies; the keys whose copy was refused."""
        items = self._bulk([({"index": {}}, source) for source in sources])
        failed: set[str] = set()
        for source, item in zip(sources, items, strict=True):
            result = item.get("index", {})
            if result.get("status", 500) >= 300:
                failed.add(source["key"])
                logger.warning(
                    "opensearch refused a document",
                    extra={
                        "doc_id": source["doc_id"],
                        "status": result.get("status"),
                        "error": (result.get("error") or {}).get("type"),
                    },
                )
        return failed

    def _delete_ids(self, ids: Sequence[str]) -> None:
        actions: list[tuple[dict[str, Any], dict[str, Any] | None]] = [
            ({"delete": {"_id": i}}, None) for i in dict.fromkeys(ids)
        ]
        refused = 0
        for item in self._bulk(actions):
            status = item.get("delete", {}).get("status", 500)
            if status >= 300 and status != 404:  # already gone is gone
                refused += 1
        if refused:
            logger.warning("opensearch refused deletes", extra={"count": refused})
            raise StorageUnavailable("the search index refused some deletes")

    def _bulk(
        self, actions: Sequence[tuple[dict[str, Any], dict[str, Any] | None]]
    ) -> list[dict[str, Any]]:
        """Run bulk actions in requests of at most MAX_BULK_BYTES; one result item per action."""
        from opensearchpy.exceptions import OpenSearchException

        params = {"refresh": "true"} if self._refresh else {}
        items: list[dict[str, Any]] = []
        for lines in bulk_chunks(actions):
            try:
                response = self._client.bulk(body=lines, index=self._index, **params)
            except OpenSearchException as exc:
                _unavailable("bulk", exc)
            items.extend(response["items"])
        return items
