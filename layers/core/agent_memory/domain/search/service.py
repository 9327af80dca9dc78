"""Search over record memory: the index finds candidates, the store has the last word."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..kernel.metrics import NO_METRICS, SEARCHES, Metrics
from ..kernel.models import Turn
from ..kernel.records import Provenance, Record
from ..usage import UsageEntry
from .embeddings import Embedder, dot
from .entities import entities
from .index import EmbedRequest, Hit, IndexDoc, IndexFilter, SearchIndex
from .lexical import tokenize
from .links import EntityLinks
from .ranking import Ranked, fuse
from .rerank import NO_RERANK, RerankStage

if TYPE_CHECKING:
    # File memories are documents here like records; the files capability, above search,
    # makes them (domain/files/), so they are named for their types only.
    from ..files import FileMemory, FileWrite
    from .fusion import LearnedFusion

logger = logging.getLogger(__name__)

CANDIDATES = 50  # hits taken from each of the lexical and vector lists before they are combined


FILE_EMBED_CHARS = 2_000
_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=UTC)


def file_text(memory: FileMemory) -> str:
    """What a file memory is found by: its path, its description, its content."""
    return "\n".join(filter(None, [memory.path, memory.description, memory.content]))


def record_doc(record: Record) -> IndexDoc:
    """A record's search document, without a vector."""
    return IndexDoc(
        tenant=record.tenant,
        agent_id=record.agent_id,
        kind="record",
        id=record.id,
        version=record.version,
        text=record_text(record),
        created_at=record.created_at,
        scope=record.scope,
        session_id=record.session_id,
        status=record.status.value,
        preview=record.preview,
        record_kind=record.kind,
        labels=record.labels,
        entities=entities(meaning_text(record)),
    )


def record_text(record: Record) -> str:
    """What a record is found by in words: its summary, content and label values."""
    return "\n".join([meaning_text(record), *record.labels.values()])


def meaning_text(record: Record) -> str:
    """What a record is found by in meaning: its summary and content. Label values are exact
    ids (a customer, a ticket): words find them, and they would only blur an embedding."""
    return f"{record.summary}\n{record.content}" if record.content else record.summary


class SearchService:
    """Ranks records by words, meaning and recency.

    `inline` is true for the embedded shape, where the index lives in the store's own database:
    a write indexes its words in its own transaction and queues its vectors, which the
    background embedder adds (no request waits for an embedding); until then the document is
    found by words. In the cloud the stream indexer embeds and indexes.
    """

    def __init__(
        self,
        index: SearchIndex | None,
        embedder: Embedder | None,
        inline: bool,
        metrics: Metrics = NO_METRICS,
        rerank: RerankStage = NO_RERANK,
        fusion: LearnedFusion | None = None,
    ) -> None:
        self.index = index
        # Which documents mention which entity, kept beside the index; None: not kept.
        self.links: EntityLinks | None = index.links if index is not None else None
        self.embedder = embedder
        self.inline = inline and index is not None
        self.metrics = metrics
        # The second stage the agent's harness.memory.search.rerank asks for (off by default).
        self.rerank = rerank
        # History search's order: the hand-set weights (None), or the learned model over the
        # same signals (AGENT_MEMORY_SEARCH_FUSION=learned; fusion.py).
        self.fusion = fusion

    def searched(self, kind: str, mode: str) -> None:
        """Count one ranked search of `kind` (record, event, file; all: every kind) in `mode`."""
        self.metrics.count(SEARCHES, kind=kind, mode=mode)

    def docs_for(self, records: Sequence[Record]) -> list[IndexDoc]:
        """Index documents for records about to be written (inline indexing only), each with
        the text the background embedder will embed for it."""
        if not self.inline:
            return []
        return [
            replace(record_doc(r), embed=self._embed_request(meaning_text(r), r.provenance))
            for r in records
        ]

    def file_docs(
        self, tenant: str, agent_id: str, writes: Sequence[FileWrite], turn: Turn | None = None
    ) -> list[FileWrite]:
        """File writes with their search documents attached (inline indexing only): a memory
        is found by its path, description and content; a deleted path is marked DELETED."""
        if not self.inline or not writes:
            return list(writes)
        out = []
        for write in writes:
            # The time of the memory's last change (its head's, when no version comes with it:
            # a re-index), so a newer document always replaces an older one.
            last = write.versions[-1].at if write.versions else None
            if last is None and write.head is not None:
                last = write.head.updated_at
            stamp = int(last.timestamp() * 1_000_000) if last else 0
            text = file_text(write.head) if write.head is not None else write.path
            embed = None
            if write.head is not None and self.embedder is not None:
                embed = EmbedRequest(
                    text[:FILE_EMBED_CHARS],
                    session_id=turn.session_id if turn else None,
                    turn_id=turn.id if turn else None,
                )
            doc = IndexDoc(
                tenant=tenant,
                agent_id=agent_id,
                kind="file",
                id=write.path,
                version=stamp,
                text=text,
                created_at=last or _EPOCH_UTC,
                status="ACTIVE" if write.head is not None else "DELETED",
                embed=embed,
                entities=entities(text) if write.head is not None else (),
            )
            out.append(write.model_copy(update={"index": doc}))
        return out

    def _embed_request(self, text: str, provenance: Provenance) -> EmbedRequest | None:
        if self.embedder is None:
            return None
        return EmbedRequest(text, session_id=provenance.session_id, turn_id=provenance.turn_id)

    def pending_vectors(self, tenant: str, agent_id: str, turn_id: str | None = None) -> int | None:
        """Documents the agent (or the turn) wrote that are found by words but not yet by
        meaning; None where that cannot be told (no index, or the cloud's)."""
        if self.index is None or self.embedder is None:
            return None
        return self.index.pending_vectors(tenant, agent_id, turn_id)

    def doc_without_vector(self, record: Record) -> IndexDoc:
        """The document of a record whose text did not change (the index keeps its vector)."""
        return record_doc(record)

    def embed_query(self, query: str, mode: str) -> tuple[Any, list[UsageEntry]]:
        """The query's embedding for `mode` (None when it ranks by words, or nothing embeds)."""
        if mode == "lexical" or self.embedder is None:
            return None, []
        embedding = self.embedder.embed([query], query=True)
        return embedding.vectors[0], [
            UsageEntry("embed", embedding.model_id, embedding.input_tokens)
        ]

    def rank(
        self,
        tenant: str,
        agent_id: str,
        query: str,
        where: IndexFilter,
        mode: str,
        min_score: float | None,
        extra: Sequence[Record] = (),
        depth: int = CANDIDATES,
        query_vector: Any = None,
    ) -> tuple[list[Ranked], list[UsageEntry]]:
        """Candidates with their scores, best first, from the best `depth` of each list.
        `extra` are records not in the index yet (the turn's own staged writes), ranked beside
        the indexed ones. `query_vector`, the query's embedding from an earlier call (a search
        looking deeper), saves embedding it again."""
        assert self.index is not None
        if depth == CANDIDATES:  # a search looking deeper asks again, deeper: counted once
            self.searched(where.kind, mode)
        usage: list[UsageEntry] = []
        lexical: list[Hit] = []
        vector: list[Hit] = []
        if mode != "vector":
            lexical = self.index.lexical(tenant, agent_id, query, where, depth)
            lexical = staged_hits(query, extra, lexical) + lexical
        if mode != "lexical" and query_vector is not None and not extra:
            vector = self.index.vector(tenant, agent_id, query_vector, where, depth)
        elif mode != "lexical" and self.embedder is not None:
            texts = [query, *(meaning_text(r) for r in extra)]
            embedding = self.embedder.embed(texts, query=True)
            usage.append(UsageEntry("embed", embedding.model_id, embedding.input_tokens))
            query_vector = embedding.vectors[0]
            vector = self.index.vector(tenant, agent_id, query_vector, where, depth)
            for record, row in zip(extra, embedding.vectors[1:], strict=True):
                vector.append(Hit(record.id, dot(row, query_vector), record.created_at))
            vector.sort(key=lambda h: h.score, reverse=True)
        created = {h.id: h.created_at for h in (*lexical, *vector) if h.created_at is not None}
        return fuse(lexical, vector, mode, min_score, created), usage

    def rank_kinds(
        self,
        tenant: str,
        agent_id: str,
        query: str,
        wheres: Sequence[IndexFilter],
        mode: str,
        min_score: float | None,
        depth: int = CANDIDATES,
    ) -> tuple[list[tuple[str, Ranked]], list[UsageEntry]]:
        """Candidates of several kinds (one filter each) in one ranking, best first, each with
        its kind: the query is embedded once, and words are weighed against the best match of
        any kind, so a record, a memory and a message compare on one scale."""
        assert self.index is not None
        self.searched("all", mode)
        lexical: list[Hit] = []
        vector: list[Hit] = []
        if mode != "vector":
            for where in wheres:
                found = self.index.lexical(tenant, agent_id, query, where, depth)
                lexical += _tagged(found, where.kind)
        query_vector, usage = self.embed_query(query, mode)
        if query_vector is not None:
            for where in wheres:
                found = self.index.vector(tenant, agent_id, query_vector, where, depth)
                vector += _tagged(found, where.kind)
            vector.sort(key=lambda h: h.score, reverse=True)
        created = {h.id: h.created_at for h in (*lexical, *vector) if h.created_at is not None}
        ranked = fuse(lexical, vector, mode, min_score, created)
        out = []
        for r in ranked:
            kind, _, doc_id = r.id.partition(":")
            out.append((kind, replace(r, id=doc_id)))
        return out, usage


def _tagged(hits: Sequence[Hit], kind: str) -> list[Hit]:
    return [replace(h, id=f"{kind}:{h.id}") for h in hits]


def staged_hits(query: str, extra: Sequence[Record], indexed: Sequence[Hit]) -> list[Hit]:
    """Word scores for records not in the index yet, on the index's scale. BM25 over these few
    alone would not do: its word weights come from the documents it scores, so a record that
    has every word of the query scored below an indexed one that shares a single word. Each
    scores the share of the query's words it has, times the best indexed score: one with every
    word ties the best indexed hit (and, newer, wins the tie)."""
    terms = set(tokenize(query, query=True))
    if not terms:
        return []
    top = max((h.score for h in indexed if h.score > 0), default=1.0)
    hits = []
    for record in extra:
        shared = len(terms & set(tokenize(record_text(record))))
        if shared:
            hits.append(Hit(record.id, top * shared / len(terms), record.created_at))
    return sorted(hits, key=lambda h: h.score, reverse=True)
