"""Request bodies of OpenSearchIndex: the index mapping, the filters every search runs under, the
k-NN query, the stored form of a document (with its words as BM25 counts them), a hit read back,
k-NN scores turned back into cosines, and bulk requests cut to size. The lexical search's bodies
are in bm25.py.

Pure functions of their arguments, so they are checked without an engine.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...domain.search import lexical
from ...domain.search.index import Hit, IndexDoc, IndexFilter


@dataclass(frozen=True)
class Copy:
    """One stored copy of a document, as a search sees it (reads and sweeps of the index)."""

    id: str  # AOSS's _id
    version: int
    digest: str | None
    model_id: str | None
    vector: list[float] | None


MAX_BULK_BYTES = 5 * 1024 * 1024  # well under AOSS's request size limit
HIT_SOURCE = ["doc_id", "created_at", "session_id"]  # what a search hit needs back

_KEYWORD = {"type": "keyword"}
TEXT_FIELD = {
    "type": "text",
    "analyzer": "standard",
    "fields": {"english": {"type": "text", "analyzer": "english"}},
}
# A document's words as BM25 counts them (`weighted_words`), for the average length of an agent's
# documents; a float, as context words count a fraction of a word.
LENGTH_FIELD = {"type": "float"}
# The domain's words of a text that is not all ASCII (domain/search/scripts.py: Korean, Thai...
# as characters and their pairs, diacritics folded), split at spaces only: what finds a word in
# any script whatever language analysers an engine offers. ASCII text has none (`text` finds it).
WORDS_FIELD = {"type": "text", "analyzer": "whitespace"}
# Fields an index made before them gains (OpenSearchIndex._add_fields), and what an index that
# refuses one goes without.
ADDED_FIELDS = (
    ("context", TEXT_FIELD, "history events are indexed without the words said before them"),
    ("length", LENGTH_FIELD, "lexical scores average the lengths of documents that have one"),
    ("words", WORDS_FIELD, "text not in ASCII is found by the standard analyser's words only"),
)


def doc_key(tenant: str, agent_id: str, kind: str, doc_id: str) -> str:
    """A document's identity in the shared index (ids may hold `/`, `|` or `#`: only the last
    part can, so the key is still unambiguous)."""
    return f"{tenant}|{agent_id}|{kind}|{doc_id}"


def index_body(dimensions: int) -> dict[str, Any]:
    """Settings and mapping of the shared index."""
    keywords = (
        "key",
        "copy",
        "digest",
        "tenant",
        "agent_id",
        "kind",
        "doc_id",
        "scope",
        "session_id",
        "status",
        "record_kind",
        "model_id",
        "labels",  # `name=value`; label names are [a-z][a-z0-9_]*, so the first `=` splits
    )
    properties: dict[str, Any] = {name: dict(_KEYWORD) for name in keywords}
    properties.update(
        {
            "preview": {"type": "boolean"},
            "created_at": {"type": "date"},
            "version": {"type": "long"},
            # BM25 over standard tokens, plus an English-stemmed twin so `deploys` finds `deploy`.
            "text": dict(TEXT_FIELD),
            # History: the words said just before an event, searched at CONTEXT_WEIGHT.
            "context": dict(TEXT_FIELD),
            "length": dict(LENGTH_FIELD),
            "words": dict(WORDS_FIELD),
            # Vectors are unit length, so the inner product is the cosine. AOSS vector
            # collections take faiss or nmslib (not lucene); faiss HNSW filters inside the search.
            "vector": {
                "type": "knn_vector",
                "dimension": dimensions,
                "method": {"name": "hnsw", "engine": "faiss", "space_type": "innerproduct"},
            },
        }
    )
    return {
        "settings": {"index": {"knn": True}},
        "mappings": {"dynamic": "strict", "properties": properties},
    }


def innerproduct_score(dot: float) -> float:
    """The score OpenSearch gives a faiss `innerproduct` match (k-NN spaces: 1 + dot for a
    non-negative dot product, 1 / (1 - dot) for a negative one)."""
    return 1.0 + dot if dot >= 0 else 1.0 / (1.0 - dot)


def cosine_from_score(score: float) -> float:
    """Back from an `innerproduct` score to the dot product, the cosine of unit vectors."""
    if score <= 0:
        return -1.0
    dot = score - 1.0 if score >= 1.0 else 1.0 - 1.0 / score
    return max(-1.0, min(1.0, dot))


def partition_clauses(tenant: str, agent_id: str, kind: str) -> list[dict[str, Any]]:
    """The documents of one agent and kind: every search runs inside them, and they are the
    documents whose statistics a lexical search scores by."""
    return [
        {"term": {"tenant": tenant}},
        {"term": {"agent_id": agent_id}},
        {"term": {"kind": kind}},
    ]


def filter_clauses(tenant: str, agent_id: str, where: IndexFilter) -> list[dict[str, Any]] | None:
    """The `bool.filter` clauses a search runs under, or None when nothing can match."""
    scopes: list[dict[str, Any]] = []
    if where.include_agent:
        scopes.append({"term": {"scope": "agent"}})
    if where.include_all_sessions:
        scopes.append({"term": {"scope": "session"}})
    elif where.session_id is not None:
        scopes.append(
            {
                "bool": {
                    "filter": [
                        {"term": {"scope": "session"}},
                        {"term": {"session_id": where.session_id}},
                    ]
                }
            }
        )
    if not scopes:
        return None
    clauses = partition_clauses(tenant, agent_id, where.kind)
    clauses.append({"bool": {"should": scopes, "minimum_should_match": 1}})
    for field, values in (
        ("status", where.statuses),
        ("record_kind", where.record_kinds),
        ("doc_id", where.ids),
    ):
        if values:
            clauses.append({"terms": {field: sorted(values)}})
    for name, value in sorted(where.labels.items()):
        clauses.append({"term": {"labels": f"{name}={value}"}})
    if where.preview != "any":
        clauses.append({"term": {"preview": where.preview == "only"}})
    return clauses


def knn_body(vector: Sequence[float], clauses: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    # The filter sits inside the knn clause: faiss applies it while it walks the graph, so k
    # results come back whenever k documents pass it (a bool filter around knn would post-filter).
    return {
        "size": limit,
        "_source": HIT_SOURCE,
        "query": {
            "knn": {
                "vector": {
                    "vector": [float(x) for x in vector],
                    "k": limit,
                    "filter": {"bool": {"filter": clauses}},
                }
            }
        },
    }


def document_source(
    key: str,
    doc: IndexDoc,
    vector: Sequence[float] | None,
    model_id: str | None,
    with_length: bool = True,
    with_words: bool = True,
) -> dict[str, Any]:
    """What is stored for one copy of a document. `digest` fingerprints everything but the copy
    id, so writing the same version with the same content again is recognised and skipped.
    `with_length`, `with_words` False: the index has no such field (an older index that
    refused it)."""
    source: dict[str, Any] = {
        "key": key,
        "tenant": doc.tenant,
        "agent_id": doc.agent_id,
        "kind": doc.kind,
        "doc_id": doc.id,
        "version": doc.version,
        "text": doc.text,
        "created_at": doc.created_at.isoformat(),
        "scope": doc.scope,
        "session_id": doc.session_id,
        "status": doc.status,
        "preview": doc.preview,
        "record_kind": doc.record_kind,
        "labels": sorted(f"{name}={value}" for name, value in doc.labels.items()),
        "model_id": model_id if vector is not None else None,
    }
    if doc.context:
        source["context"] = doc.context
    if with_length:
        source["length"] = lexical.weighted_words(doc.text, doc.context).length
    if with_words and not (doc.text.isascii() and doc.context.isascii()):
        source["words"] = " ".join(lexical.tokenize(doc.text) + lexical.tokenize(doc.context))
    if vector is not None:
        source["vector"] = [float(x) for x in vector]
    canonical = json.dumps(source, sort_keys=True, separators=(",", ":"))
    source["digest"] = hashlib.sha256(canonical.encode()).hexdigest()
    source["copy"] = uuid.uuid4().hex
    return source


def hit_from_source(source: dict[str, Any], score: float) -> Hit:
    """A search hit from what HIT_SOURCE asks back."""
    created = source.get("created_at")
    return Hit(
        source["doc_id"],
        score,
        datetime.fromisoformat(created) if created else None,
        source.get("session_id"),
    )


def bulk_chunks(
    actions: Sequence[tuple[dict[str, Any], dict[str, Any] | None]],
) -> Iterator[list[dict[str, Any]]]:
    """The lines of bulk `actions`, in requests of at most MAX_BULK_BYTES."""
    lines: list[dict[str, Any]] = []
    size = 0
    for action, source in actions:
        pair = [action] if source is None else [action, source]
        pair_size = sum(len(json.dumps(line)) + 1 for line in pair)
        if lines and size + pair_size > MAX_BULK_BYTES:
            yield lines
            lines, size = [], 0
        lines.extend(pair)
        size += pair_size
    if lines:
        yield lines
