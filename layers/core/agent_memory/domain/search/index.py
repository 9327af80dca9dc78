"""The search index port: derived data kept beside the store, found by words or by meaning.

The index is never the source of truth. Every hit is re-read from the store (status, version,
preview, scope) before anything is returned, so a stale index cannot leak a deleted, superseded
or preview record.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .links import EntityLinks

DocKind = Literal["record", "file", "event"]

# How much a word of a document's context counts against a word of its own text in BM25.
# Measured on LoCoMo history (benchmarks/RESULTS.md): 0.15 / 0.25 / 0.35 give recall@10
# 0.744 / 0.754 / 0.746.
CONTEXT_WEIGHT = 0.25


@dataclass(frozen=True)
class EmbedRequest:
    """What a document is to be found by in meaning, embedded after it is written (embedded
    shape: by the background embedder, never inside the write), and whom the embedding is
    billed to: the turn that wrote the document, or its agent when no turn did."""

    text: str
    session_id: str | None = None
    turn_id: str | None = None


@dataclass(frozen=True)
class IndexDoc:
    """One searchable document: a record, a file memory, or a part of a history event."""

    tenant: str
    agent_id: str
    kind: DocKind
    id: str  # record id, file path, or event part id
    version: int  # an older version never overwrites a newer one
    text: str
    created_at: datetime
    scope: str = "agent"  # records: session | agent; files: agent; events: session
    session_id: str | None = None
    status: str = "ACTIVE"
    preview: bool = False
    record_kind: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    vector: Sequence[float] | None = None  # unit length; None keeps a stored vector, if any
    model_id: str | None = None
    # Embedded shape: the text to embed once the document is written (its stored vector, now
    # stale, is dropped). None with no vector: the text did not change, the vector stays.
    embed: EmbedRequest | None = None
    turn_sequence: int | None = None  # history: the turn the event belongs to
    # History: the words of the messages said just before the event. They find it too, at
    # CONTEXT_WEIGHT of the weight of its own words; never returned as its text.
    context: str = ""
    # Entity keys the document mentions (entities.py): what links it to others (links.py).
    entities: tuple[str, ...] = ()


@dataclass(frozen=True)
class IndexFilter:
    """What a search may see. Applied inside the index before scoring (pre-filtering)."""

    kind: DocKind = "record"
    statuses: frozenset[str] = frozenset({"ACTIVE"})
    record_kinds: frozenset[str] = frozenset()
    labels: dict[str, str] = field(default_factory=dict)
    ids: frozenset[str] = frozenset()
    include_agent: bool = True
    session_id: str | None = None
    include_all_sessions: bool = False
    preview: Literal["live", "any", "only"] = "live"


@dataclass(frozen=True)
class Hit:
    id: str
    score: float  # lexical: BM25 (higher is better); vector: cosine in [-1, 1]
    created_at: datetime | None = None
    session_id: str | None = None  # a session-scoped document's session (history: its event's)
    # Lexical hits of history events: what the event's own words scored, its context words not
    # counted (so `score - own` is what the words said before it added). None: not told.
    own: float | None = None


@dataclass(frozen=True)
class StoredDoc:
    """Which document an index holds, as a sweep of the index sees it."""

    tenant: str
    agent_id: str
    kind: DocKind
    id: str
    session_id: str | None = None


def newest_versions(docs: Sequence[IndexDoc]) -> list[IndexDoc]:
    """Each document of a batch once, at its highest version (the later one of equal versions):
    a batch can carry a document twice, and an older version never overwrites a newer one."""
    latest: dict[tuple[str, str, str, str], IndexDoc] = {}
    for doc in docs:
        key = (doc.tenant, doc.agent_id, doc.kind, doc.id)
        held = latest.get(key)
        if held is None or doc.version >= held.version:
            latest[key] = doc
    return list(latest.values())


def check_dimensions(vector: Sequence[float] | None, dimensions: int) -> None:
    """Refuse a vector of another size than the index's, before anything is written."""
    if vector is not None and len(vector) != dimensions:
        raise ValueError(
            f"a vector of {len(vector)} dimensions cannot go in an index of {dimensions}"
        )


class SearchIndex(ABC):
    """Adapters: EmbeddedIndex (SQLite FTS5 + exact vectors), OpenSearchIndex (AOSS),
    S3VectorsIndex (S3 Vectors + word postings in DynamoDB)."""

    # The entity links its writes keep (links.py): EmbeddedIndex's own, LinkedIndex's in the
    # cloud; None where none are kept.
    links: EntityLinks | None = None

    @abstractmethod
    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        """Add or replace documents; a document whose stored version is newer is left alone."""

    @abstractmethod
    def delete(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        """Remove documents (an agent's deletion, a file's removal)."""

    @abstractmethod
    def delete_agent(self, tenant: str, agent_id: str) -> None:
        """Remove every document of an agent."""

    def stored_vectors(
        self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]
    ) -> dict[str, tuple[list[float], str]]:
        """Each of these documents' stored vector and the model that made it, for an export to
        carry; documents without one are left out. An index that cannot read its vectors back
        (the cloud's S3 Vectors) answers none, and an import embeds anew."""
        return {}

    def pending_vectors(self, tenant: str, agent_id: str, turn_id: str | None = None) -> int | None:
        """How many of the agent's (or the turn's) documents still wait for their vector; None
        where the index cannot tell (the cloud's stream indexer embeds as it indexes)."""
        return None

    def stored(self, tenant: str | None, agent_id: str | None) -> Iterator[StoredDoc] | None:
        """Every document the index holds (of the tenant, of the agent: None for all), each
        once, for a sweep of what the store no longer holds; None where the index cannot list
        them so (the embedded index is rebuilt from its own database instead)."""
        return None

    @abstractmethod
    def lexical(
        self, tenant: str, agent_id: str, query: str, where: IndexFilter, limit: int
    ) -> list[Hit]:
        """Best BM25 matches of the query's words, best first."""

    @abstractmethod
    def vector(
        self, tenant: str, agent_id: str, vector: Sequence[float], where: IndexFilter, limit: int
    ) -> list[Hit]:
        """Nearest documents by cosine, best first (documents of other models are skipped)."""
