"""Entity links: which of an agent's records, file memories and history event parts mention each
entity (entities.py), kept beside the search index as derived data.

Both shapes keep one mention a (entity, document) pair and one head a document (its version and
its entities, so a new version drops the mentions the old one had):

- embedded: rows of `entity_links` in the store's SQLite file, written in the same transaction as
  the document's words (adapters/sqlite/entity_links.py);
- cloud: items of the one DynamoDB table, one partition an agent (adapters/dynamodb/
  entity_links.py), written by the stream indexer beside the search index through LinkedIndex,
  whichever index backend (OpenSearch or S3 Vectors) it writes. A mention is its own item, so an
  entity's mentions are one Query and the entities an agent has are one paged Query in key order,
  neither needing the index engine's aggregations.

Only what a search may return is linked: an ACTIVE, non-preview document. A superseded record, a
deleted file or a preview turn's message links nothing.

A document's keys are its rules' keys (entities.py, written with it) and, where a model extracts
entities (entity_model.py), the model's keys of its text, added later (`link_model`): each head
keeps both sets and the text they are of, and its mentions are their union.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from .index import DocKind, Hit, IndexDoc, IndexFilter, SearchIndex, StoredDoc

MAX_ENTITY_PAGE = 100
MAX_ENTITY_MENTIONS = 50


@dataclass(frozen=True)
class Mention:
    """A document that mentions an entity."""

    kind: DocKind
    id: str  # record id, file path, or event part id
    created_at: datetime
    session_id: str | None = None


@dataclass(frozen=True)
class Entity:
    """An entity of an agent: how many documents mention it, and the newest of them."""

    key: str
    count: int
    mentions: tuple[Mention, ...]


def linked(doc: IndexDoc) -> tuple[str, ...]:
    """The entities a document links: none unless a search may return it."""
    if doc.status != "ACTIVE" or doc.preview:
        return ()
    return doc.entities


def text_sha(text: str) -> str:
    """Which text a document's model keys are of: a new text asks the model again."""
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Keys:
    """What a linked document's head holds: its rules' keys, the text (`text_sha`: None when it
    links nothing) and the model's keys of the text `model_sha`."""

    rules: tuple[str, ...] = ()
    text_sha: str | None = None
    model: tuple[str, ...] = ()
    model_sha: str | None = None

    @property
    def union(self) -> tuple[str, ...]:
        """The keys the document links: the rules' first, then the model's others."""
        return tuple(dict.fromkeys((*self.rules, *self.model)))

    @property
    def wants_model(self) -> bool:
        """Whether the model has not answered for the document's text yet."""
        return self.text_sha is not None and self.model_sha != self.text_sha

    def relinked(self, doc: IndexDoc) -> Keys:
        """The keys of `doc`, a new version of the document: the model's kept if its text is
        the one they are of, dropped otherwise (the model is asked again)."""
        sha = text_sha(doc.text) if linked_at_all(doc) and doc.text.strip() else None
        keep = sha is not None and self.model_sha == sha
        return Keys(
            rules=linked(doc),
            text_sha=sha,
            model=self.model if keep else (),
            model_sha=sha if keep else None,
        )

    def answered(self, sha: str, keys: Sequence[str]) -> Keys | None:
        """The keys with the model's answer for the text `sha`; None when the document no
        longer has that text (a newer version came, or it links nothing now)."""
        if self.text_sha is None or self.text_sha != sha:
            return None
        return Keys(self.rules, self.text_sha, tuple(dict.fromkeys(keys)), sha)


def linked_at_all(doc: IndexDoc) -> bool:
    """Whether a search may return the document, so that it links keys."""
    return doc.status == "ACTIVE" and not doc.preview


class EntityLinks(ABC):
    """Adapters: SqliteEntityLinks (the store's file), DynamoEntityLinks (the one table)."""

    @abstractmethod
    def link(self, docs: Sequence[IndexDoc]) -> list[IndexDoc]:
        """Make each document's mentions those of `linked(doc)` (and the model's keys of its
        text, when it has them: Keys.relinked); an older version than the one linked already
        changes nothing. Returns the documents linked whose text the model has not answered
        for (Keys.wants_model), for `link_model`."""

    @abstractmethod
    def link_model(self, doc: IndexDoc, sha: str, keys: Sequence[str]) -> bool:
        """Add the model's `keys` of the text `sha` to the document's links, in place of the
        model keys it had (Keys.answered); whether they were added (not when the document
        linked now has another text, a newer version, or is gone). Idempotent."""

    @abstractmethod
    def unlink(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        """Remove the documents' mentions (a document removed from the index)."""

    @abstractmethod
    def unlink_agent(self, tenant: str, agent_id: str) -> None:
        """Remove every mention of an agent."""

    @abstractmethod
    def entities(
        self,
        tenant: str,
        agent_id: str,
        prefix: str,
        limit: int,
        after: str | None,
        mentions: int,
    ) -> list[Entity]:
        """The agent's entities whose key starts with `prefix`, in key order after the key
        `after`, at most `limit`; each with its count and its `mentions` newest mentions."""

    @abstractmethod
    def mentions(
        self, tenant: str, agent_id: str, key: str, kind: DocKind, limit: int
    ) -> list[Mention]:
        """The newest documents of `kind` that mention entity `key`, newest first."""

    @abstractmethod
    def entities_of(
        self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]
    ) -> dict[str, tuple[str, ...]]:
        """The entities each linked document of `ids` mentions (a document linking none, or not
        linked, is left out)."""


class LinkedIndex(SearchIndex):
    """A search index that keeps entity links as it writes: the cloud's stream indexer writes
    the documents of any index backend through it, and its links follow them."""

    def __init__(self, index: SearchIndex, links: EntityLinks) -> None:
        self.inner = index
        self.links = self._links = links

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        self.inner.upsert(docs)
        self._links.link(docs)  # no model here: its keys are the rules' (ModelLinkedIndex)

    def delete(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        self.inner.delete(tenant, agent_id, kind, ids)
        self._links.unlink(tenant, agent_id, kind, ids)

    def delete_agent(self, tenant: str, agent_id: str) -> None:
        self.inner.delete_agent(tenant, agent_id)
        self._links.unlink_agent(tenant, agent_id)

    def pending_vectors(self, tenant: str, agent_id: str, turn_id: str | None = None) -> int | None:
        return self.inner.pending_vectors(tenant, agent_id, turn_id)

    def stored_vectors(
        self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]
    ) -> dict[str, tuple[list[float], str]]:
        return self.inner.stored_vectors(tenant, agent_id, kind, ids)

    def stored(self, tenant: str | None, agent_id: str | None) -> Iterator[StoredDoc] | None:
        return self.inner.stored(tenant, agent_id)

    def lexical(
        self, tenant: str, agent_id: str, query: str, where: IndexFilter, limit: int
    ) -> list[Hit]:
        return self.inner.lexical(tenant, agent_id, query, where, limit)

    def vector(
        self,
        tenant: str,
        agent_id: str,
        vector: Sequence[float],
        where: IndexFilter,
        limit: int,
    ) -> list[Hit]:
        return self.inner.vector(tenant, agent_id, vector, where, limit)
