"""WordPostings: BM25 over word postings kept in the one table, the lexical half of the S3 Vectors
search backend (S3 Vectors has no full-text search).

Per agent and document kind, one partition (`keys.words_pk`) holds:

- a posting per word of each document (`WP#{word}#{docId}`): the word's weighted count, the
  document's weighted length, its created_at and its filter fields (`filters.doc_fields`), so a
  query word is one Query and needs no second read to filter or rank;
- the document's head (`WD#{docId}`): version, a write token, its word counts and length;
- the totals (`WN`): documents and their summed length, for BM25's average length.

A document's head and the totals change in one transaction, conditioned on the head read before
(its token), so an older version never overwrites a newer one and the totals stay exact. The
postings follow in BatchWriteItem (a document has more words than a transaction takes). Two
writers of one document may then interleave their postings; each re-reads the head after writing
and, when another writer's version stands, writes that version's postings, so the last writer to
finish leaves the postings of the version that won. Until then a query may rank a document by an
older version's words; the services re-read every hit from the store, so nothing stale leaks.

Context words (history: what was said just before an event) count CONTEXT_WEIGHT of a word of
the document's own text, in its count and in its length.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from pynamodb.attributes import JSONAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.exceptions import DoesNotExist

from ...domain.kernel.errors import StorageUnavailable
from ...domain.kernel.restore import on_restore
from ...domain.kernel.retry import optimistic
from ...domain.search.index import DocKind, Hit, IndexDoc, IndexFilter
from ...domain.search.lexical import bm25_term, stems, weighted_words
from ..s3vectors.filters import doc_fields, matches
from . import keys
from .item_base import IsoDateTimeAttribute, Item
from .items import bind, forget_client, table_settings
from .transactions import Transaction, storage_errors

logger = logging.getLogger(__name__)

KINDS: tuple[DocKind, ...] = ("record", "file", "event")
_ATTEMPTS = 5  # lost races on one document's head before the write is given up
_SETTLE_PASSES = 3  # re-reads of the head after writing postings (see the module doc)


class PostingItem(Item):
    doc_id = UnicodeAttribute()
    # The word's weighted count in the document (not `count`: that is pynamodb's Model.count).
    weight = NumberAttribute()
    length = NumberAttribute()  # the document's weighted length
    created_at = IsoDateTimeAttribute()
    fields = JSONAttribute()  # filters.doc_fields
    # The word's count in the document's own text, where it has context words (history); absent:
    # the same as `weight` (no context, or written before it was kept).
    own = NumberAttribute(null=True)


class WordDocItem(Item):
    doc_id = UnicodeAttribute()
    version = NumberAttribute()
    token = UnicodeAttribute()  # new on each write: the condition of the next one
    length = NumberAttribute()
    counts = JSONAttribute()  # word -> weighted count
    created_at = IsoDateTimeAttribute()
    fields = JSONAttribute()
    own = JSONAttribute(null=True)  # word -> count in its own text, where it has context words


class WordTotalsItem(Item):
    docs = NumberAttribute(default=0)
    length = NumberAttribute(default=0)


class WordPostings:
    """Word postings of searchable documents in the DynamoDB table `table_name`."""

    def __init__(self, table_name: str, region: str, host: str | None = None) -> None:
        settings = table_settings(table_name, region, host)
        self._posting = bind(PostingItem, settings)
        self._doc = bind(WordDocItem, settings)
        self._totals = bind(WordTotalsItem, settings)
        # One connection (one botocore client) for the three, as DynamoStore does.
        connection = self._posting._get_connection()
        self._doc._connection = connection
        self._totals._connection = connection
        self._connection = connection.connection
        on_restore(self.forget_client)

    def forget_client(self) -> None:
        forget_client(self._connection)

    # -- writes ---------------------------------------------------------------------------

    def write(self, doc: IndexDoc) -> bool:
        """Index the document's words; False when a newer version is indexed already."""
        return optimistic(
            lambda: self._write_once(doc),
            attempts=_ATTEMPTS,
            exhausted=lambda: StorageUnavailable(
                "the word index is busy with this document; try again"
            ),
        )

    def _write_once(self, doc: IndexDoc) -> bool:
        pk = keys.words_pk(doc.tenant, doc.agent_id, doc.kind)
        old = self._head(pk, doc.id)
        if old is not None and old.version > doc.version:
            return False  # an older version never overwrites a newer one
        words = weighted_words(doc.text, doc.context)
        head = self._doc(
            pk,
            keys.word_document_sk(doc.id),
            doc_id=doc.id,
            version=doc.version,
            token=uuid.uuid4().hex,
            length=words.length,
            counts=words.counts,
            own=words.own if doc.context else None,
            created_at=doc.created_at,
            fields=doc_fields(doc),
        )
        totals = self._totals.key(pk, keys.WORD_TOTALS)
        with Transaction(self._connection) as tx:
            tx.put(
                "head",
                head,
                self._doc.pk.does_not_exist() if old is None else (self._doc.token == old.token),
            )
            tx.update(
                "totals",
                totals,
                [
                    self._totals.docs.add(1 if old is None else 0),
                    self._totals.length.add(words.length - (old.length if old else 0)),
                ],
                None,
            )
        self._settle(pk, head, old)
        return True

    def delete(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        pk = keys.words_pk(tenant, agent_id, kind)
        for doc_id in dict.fromkeys(ids):
            optimistic(
                lambda doc_id=doc_id: self._delete_once(pk, doc_id),  # type: ignore[misc]
                attempts=_ATTEMPTS,
                exhausted=lambda: StorageUnavailable(
                    "the word index is busy with this document; try again"
                ),
            )

    def _delete_once(self, pk: str, doc_id: str) -> None:
        old = self._head(pk, doc_id)
        if old is None:
            return
        with Transaction(self._connection) as tx:
            tx.delete("head", old, self._doc.token == old.token)
            tx.update(
                "totals",
                self._totals.key(pk, keys.WORD_TOTALS),
                [self._totals.docs.add(-1), self._totals.length.add(-old.length)],
                None,
            )
        self._write_postings(pk, None, old)

    def delete_agent(self, tenant: str, agent_id: str) -> None:
        for kind in KINDS:
            pk = keys.words_pk(tenant, agent_id, kind)
            with storage_errors():
                found = list(self._posting.query(pk, attributes_to_get=["pk", "sk"]))
                with self._posting.batch_write() as batch:
                    for item in found:
                        batch.delete(item)

    def _head(self, pk: str, doc_id: str) -> WordDocItem | None:
        with storage_errors():
            try:
                return self._doc.get(pk, keys.word_document_sk(doc_id), consistent_read=True)
            except DoesNotExist:
                return None

    def _settle(self, pk: str, written: WordDocItem, old: WordDocItem | None) -> None:
        """Write the postings of `written`, then make them those of the head that stands."""
        self._write_postings(pk, written, old)
        for _ in range(_SETTLE_PASSES):
            current = self._head(pk, written.doc_id)
            if current is not None and current.token == written.token:
                return
            # Another writer's version won meanwhile (or a delete did): its postings, not ours.
            self._write_postings(pk, current, written)
            if current is None:
                return
            written = current
        logger.warning("word postings still changing", extra={"doc_id": written.doc_id})

    def _write_postings(
        self, pk: str, head: WordDocItem | None, replaced: WordDocItem | None
    ) -> None:
        counts: dict[str, float] = head.counts if head is not None else {}
        own: dict[str, float] | None = head.own if head is not None else None
        gone = [w for w in (replaced.counts if replaced is not None else {}) if w not in counts]
        doc_id = (head or replaced).doc_id  # type: ignore[union-attr]
        with storage_errors(), self._posting.batch_write() as batch:
            for word in gone:
                batch.delete(self._posting.key(pk, keys.word_posting_sk(word, doc_id)))
            if head is None:
                return
            for word, count in counts.items():
                batch.save(
                    self._posting(
                        pk,
                        keys.word_posting_sk(word, doc_id),
                        doc_id=doc_id,
                        weight=count,
                        own=None if own is None else own.get(word, 0.0),
                        length=head.length,
                        created_at=head.created_at,
                        fields=head.fields,
                    )
                )

    # -- queries --------------------------------------------------------------------------

    def search(
        self, tenant: str, agent_id: str, query: str, where: IndexFilter, limit: int
    ) -> list[Hit]:
        """BM25 over the postings of the query's words, filtered, best first; newer wins ties."""
        words = list(dict.fromkeys(stems(query, query=True)))
        if not words or limit < 1:
            return []
        pk = keys.words_pk(tenant, agent_id, where.kind)
        with storage_errors():
            try:
                totals = self._totals.get(pk, keys.WORD_TOTALS)
                n, total = int(totals.docs), float(totals.length)
            except DoesNotExist:
                return []
            postings = {word: list(self._postings(pk, word)) for word in words}
        scores: dict[str, float] = {}
        told = where.kind == "event"  # history hits tell what their own words scored (Hit.own)
        own: dict[str, float] = {}
        found: dict[str, PostingItem] = {}
        avg = total / n if n > 0 else 1.0
        for items in postings.values():
            df = len(items)
            for item in items:
                if not matches(item.fields, where):
                    continue
                found[item.doc_id] = item
                # df counts every document with the word, as a full-text engine's does.
                length = float(item.length)
                term = bm25_term(float(item.weight), df, max(n, df), length, avg)
                scores[item.doc_id] = scores.get(item.doc_id, 0.0) + term
                if told:
                    if item.own is not None:  # the document has context: its own count apart
                        own_tf = float(item.own)
                        term = bm25_term(own_tf, df, max(n, df), length, avg) if own_tf else 0.0
                    own[item.doc_id] = own.get(item.doc_id, 0.0) + term
        ranked = sorted(scores, key=lambda i: (-scores[i], -found[i].created_at.timestamp()))
        return [_hit(found[i], scores[i], own[i] if told else None) for i in ranked[:limit]]

    def _postings(self, pk: str, word: str) -> Iterable[PostingItem]:
        return self._posting.query(pk, self._posting.sk.startswith(keys.word_prefix(word)))


def _hit(item: PostingItem, score: float, own: float | None) -> Hit:
    created: datetime = item.created_at
    fields: dict[str, Any] = item.fields
    return Hit(item.doc_id, score, created, fields.get("session_id"), own)
