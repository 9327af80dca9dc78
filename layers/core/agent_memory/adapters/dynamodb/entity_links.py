"""DynamoEntityLinks: the EntityLinks port in the one DynamoDB table (domain/search/links.py).

One partition an agent (`keys.entities_pk`) holds:

- a head a linked document (`ED#{kind}#{docId}`): its version, a write token, its entities (the
  union of its rules' keys and the model's keys of its text, each set kept too: links.Keys), and
  the created_at and session it is listed with;
- a mention an entity it mentions (`EM#{entity}#{kind}#{docId}`), so an entity's mentions are one
  Query on `EM#{entity}#` and the agent's entities one paged Query on `EM#{prefix}`, in key order.

Written by the stream indexer for a batch: the batch's heads in one BatchGetItem, then only the
documents whose entities changed are written (most name nothing, or what they named before).

As with the word postings (postings.py): the head changes under a condition on the head read
before (its token), so an older version never overwrites a newer; the mentions follow in
BatchWriteItem, and a writer that finds another's head standing after writing its mentions
rewrites them to that head's. Entity keys hold no `#` (entities.py), so `EM#{entity}#` selects
exactly one entity's mentions. Neither prefix matches the stream indexer's.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator, Sequence

from pynamodb.attributes import JSONAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.exceptions import DeleteError, DoesNotExist, PutError

from ...domain.kernel.errors import PreconditionFailed, StorageUnavailable
from ...domain.kernel.retry import optimistic
from ...domain.search.index import DocKind, IndexDoc, SearchIndex
from ...domain.search.links import (
    Entity,
    EntityLinks,
    Keys,
    LinkedIndex,
    Mention,
    linked,
    linked_at_all,
    text_sha,
)
from . import keys
from .item_base import IsoDateTimeAttribute, Item
from .items import bind, table_settings
from .transactions import is_condition_failure, storage_errors, unavailable

logger = logging.getLogger(__name__)

_ATTEMPTS = 5
ENTITY_DOCUMENT = "ED#"
ENTITY_MENTION = "EM#"
_SETTLE_PASSES = 3
_UNREAD = object()  # a head not read yet in this attempt


def entities_pk(tenant: str, agent_id: str) -> str:
    """The agent's entity links: derived data beside its partition, like the word partitions."""
    return f"{keys.agent_pk(tenant, agent_id)}#EN"


def entity_doc_sk(kind: str, doc_id: str) -> str:
    # A document id (a file path may hold `#`) only ever ends the key.
    return f"{ENTITY_DOCUMENT}{kind}#{doc_id}"


def entity_mention_prefix(prefix: str) -> str:
    """The start of the mentions of every entity whose key starts with `prefix`."""
    return f"{ENTITY_MENTION}{prefix}"


def entity_mention_sk(entity: str, kind: str, doc_id: str) -> str:
    return f"{ENTITY_MENTION}{entity}#{kind}#{doc_id}"


class EntityDocItem(Item):
    kind = UnicodeAttribute()
    doc_id = UnicodeAttribute()
    version = NumberAttribute()
    token = UnicodeAttribute()
    entities = JSONAttribute()  # the keys it links, a list
    created_at = IsoDateTimeAttribute()
    session_id = UnicodeAttribute(null=True)
    # links.Keys; absent on a head linked before model keys were kept (it has none).
    rules = JSONAttribute(null=True)
    text_sha = UnicodeAttribute(null=True)
    model = JSONAttribute(null=True)
    model_sha = UnicodeAttribute(null=True)

    def keys(self) -> Keys:
        return Keys(tuple(self.rules or ()), self.text_sha, tuple(self.model or ()), self.model_sha)


class MentionItem(Item):
    entity = UnicodeAttribute()
    kind = UnicodeAttribute()
    doc_id = UnicodeAttribute()
    created_at = IsoDateTimeAttribute()
    session_id = UnicodeAttribute(null=True)


class DynamoEntityLinks(EntityLinks):
    """Entity links of searchable documents in the DynamoDB table `table_name`."""

    def __init__(self, table_name: str, region: str, host: str | None = None) -> None:
        settings = table_settings(table_name, region, host)
        self._doc = bind(EntityDocItem, settings)
        self._mention = bind(MentionItem, settings)
        # One connection (one botocore client) for both, as DynamoStore does.
        self._mention._connection = self._doc._get_connection()

    # -- writes -------------------------------------------------------------------------------

    def link(self, docs: Sequence[IndexDoc]) -> list[IndexDoc]:
        # The heads of the batch in one read: most documents name nothing and had no head, and
        # most re-written ones name what they named (a status change), so most need no write.
        held = self._heads(docs)
        pending = []
        for doc in docs:
            old = held.get((entities_pk(doc.tenant, doc.agent_id), doc.kind, doc.id))
            if old is not None and old.version > doc.version:
                continue  # an older version never overwrites a newer one
            keys = (old.keys() if old is not None else Keys()).relinked(doc)
            if keys.wants_model:
                pending.append(doc)
            if old is None and not keys.union:
                continue  # nothing to link, and nothing linked before (link_model makes one)
            if old is not None and old.keys() == keys and old.entities == list(keys.union):
                # Linked as it is already (a status change, a re-index): its mentions stand.
                # The head keeps its older version: only a document's own stream, in order,
                # writes it, so no older version of it comes after this one.
                continue
            reads = iter([old])
            self._retried(
                lambda doc=doc, reads=reads: self._link_once(  # type: ignore[misc]
                    doc, next(reads, _UNREAD)
                )
            )
        return pending

    def link_model(self, doc: IndexDoc, sha: str, keys: Sequence[str]) -> bool:
        return self._retried(lambda: self._link_model_once(doc, sha, keys))

    def _retried(self, attempt: Callable[[], bool]) -> bool:
        return optimistic(
            attempt,
            attempts=_ATTEMPTS,
            exhausted=lambda: StorageUnavailable(
                "the entity links of this document are busy; try again"
            ),
        )

    def _heads(self, docs: Sequence[IndexDoc]) -> dict[tuple[str, str, str], EntityDocItem]:
        wanted = {(entities_pk(d.tenant, d.agent_id), entity_doc_sk(d.kind, d.id)) for d in docs}
        if not wanted:
            return {}
        with storage_errors():
            found = self._doc.batch_get(list(wanted), consistent_read=True)
            return {(h.pk, h.kind, h.doc_id): h for h in found}

    def _link_once(self, doc: IndexDoc, old: EntityDocItem | None | object) -> bool:
        pk = entities_pk(doc.tenant, doc.agent_id)
        if old is _UNREAD:  # a retry: the head as it stands now
            old = self._head(pk, doc.kind, doc.id)
        assert old is None or isinstance(old, EntityDocItem)
        if old is not None and old.version > doc.version:
            return False  # an older version never overwrites a newer one
        keys = (old.keys() if old is not None else Keys()).relinked(doc)
        self._put(pk, doc, doc.version, keys, old)
        return True

    def _link_model_once(self, doc: IndexDoc, sha: str, keys: Sequence[str]) -> bool:
        pk = entities_pk(doc.tenant, doc.agent_id)
        old = self._head(pk, doc.kind, doc.id)
        if old is not None and old.version > doc.version:
            return False
        if old is None:
            # A document that names nothing by the rules has no head until the model names
            # something: the indexer asks right after linking it, in the item's stream order.
            if not linked_at_all(doc) or text_sha(doc.text) != sha:
                return False
            base = Keys(linked(doc), sha)
        else:
            base = old.keys()
        answered = base.answered(sha, keys)
        if answered is None:
            return False
        if old is None and not answered.union:
            return True  # the model named nothing either: no head needed
        self._put(pk, doc, old.version if old is not None else doc.version, answered, old)
        return True

    def _put(
        self, pk: str, doc: IndexDoc, version: int, keys: Keys, old: EntityDocItem | None
    ) -> None:
        """Write the head of `keys` on the condition that `old` still stands, then its mentions."""
        head = self._doc(
            pk,
            entity_doc_sk(doc.kind, doc.id),
            kind=doc.kind,
            doc_id=doc.id,
            version=version,
            token=uuid.uuid4().hex,
            entities=list(keys.union),
            created_at=doc.created_at,
            session_id=doc.session_id,
            rules=list(keys.rules),
            text_sha=keys.text_sha,
            model=list(keys.model),
            model_sha=keys.model_sha,
        )
        condition = self._doc.pk.does_not_exist() if old is None else (self._doc.token == old.token)
        try:
            head.save(condition=condition)
        except PutError as exc:
            if is_condition_failure(exc):
                raise PreconditionFailed("the entity head changed meanwhile") from exc
            raise unavailable(exc) from exc
        self._settle(pk, head, old)

    def unlink(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        pk = entities_pk(tenant, agent_id)
        for doc_id in dict.fromkeys(ids):
            optimistic(
                lambda doc_id=doc_id: self._unlink_once(pk, kind, doc_id),  # type: ignore[misc]
                attempts=_ATTEMPTS,
                exhausted=lambda: StorageUnavailable(
                    "the entity links of this document are busy; try again"
                ),
            )

    def _unlink_once(self, pk: str, kind: str, doc_id: str) -> None:
        old = self._head(pk, kind, doc_id)
        if old is None:
            return
        try:
            old.delete(condition=self._doc.token == old.token)
        except DeleteError as exc:
            if is_condition_failure(exc):
                raise PreconditionFailed("the entity head changed meanwhile") from exc
            raise unavailable(exc) from exc
        self._write_mentions(pk, None, old)

    def unlink_agent(self, tenant: str, agent_id: str) -> None:
        pk = entities_pk(tenant, agent_id)
        with storage_errors():
            found = list(self._doc.query(pk, attributes_to_get=["pk", "sk"]))
            with self._doc.batch_write() as batch:
                for item in found:
                    batch.delete(item)

    def _head(self, pk: str, kind: str, doc_id: str) -> EntityDocItem | None:
        with storage_errors():
            try:
                return self._doc.get(pk, entity_doc_sk(kind, doc_id), consistent_read=True)
            except DoesNotExist:
                return None

    def _settle(self, pk: str, written: EntityDocItem, old: EntityDocItem | None) -> None:
        """Write the mentions of `written`, then make them those of the head that stands."""
        self._write_mentions(pk, written, old)
        for _ in range(_SETTLE_PASSES):
            current = self._head(pk, written.kind, written.doc_id)
            if current is not None and current.token == written.token:
                return
            self._write_mentions(pk, current, written)
            if current is None:
                return
            written = current
        logger.warning("entity links still changing", extra={"doc_id": written.doc_id})

    def _write_mentions(
        self, pk: str, head: EntityDocItem | None, replaced: EntityDocItem | None
    ) -> None:
        keep = set(head.entities) if head is not None else set()
        had = set(replaced.entities) if replaced is not None else set()
        gone = [k for k in had if k not in keep]
        kind, doc_id = (head or replaced).kind, (head or replaced).doc_id  # type: ignore[union-attr]
        with storage_errors(), self._mention.batch_write() as batch:
            for key in gone:
                batch.delete(self._mention.key(pk, entity_mention_sk(key, kind, doc_id)))
            if head is None:
                return
            for key in head.entities:
                if key in had and head.created_at == replaced.created_at:  # type: ignore[union-attr]
                    continue  # its mention stands as it is
                batch.save(
                    self._mention(
                        pk,
                        entity_mention_sk(key, kind, doc_id),
                        entity=key,
                        kind=kind,
                        doc_id=doc_id,
                        created_at=head.created_at,
                        session_id=head.session_id,
                    )
                )

    # -- reads --------------------------------------------------------------------------------

    def entities(
        self,
        tenant: str,
        agent_id: str,
        prefix: str,
        limit: int,
        after: str | None,
        mentions: int,
    ) -> list[Entity]:
        pk = entities_pk(tenant, agent_id)
        out: list[Entity] = []
        key: str | None = None
        held: list[Mention] = []
        for item in self._mentions(pk, entity_mention_prefix(prefix), after):
            if item.entity != key:
                if key is not None:
                    out.append(_entity(key, held, mentions))
                    if len(out) >= limit:
                        return out
                key, held = item.entity, []
            held.append(_mention(item))
        if key is not None and len(out) < limit:
            out.append(_entity(key, held, mentions))
        return out

    def mentions(
        self, tenant: str, agent_id: str, key: str, kind: DocKind, limit: int
    ) -> list[Mention]:
        pk = entities_pk(tenant, agent_id)
        found = [
            _mention(item) for item in self._mentions(pk, entity_mention_sk(key, kind, ""), None)
        ]
        found.sort(key=lambda m: (m.created_at, m.id), reverse=True)
        return found[:limit]

    def entities_of(
        self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]
    ) -> dict[str, tuple[str, ...]]:
        pk = entities_pk(tenant, agent_id)
        keys_ = [(pk, entity_doc_sk(kind, doc_id)) for doc_id in dict.fromkeys(ids)]
        with storage_errors():
            heads = list(self._doc.batch_get(keys_, attributes_to_get=["doc_id", "entities"]))
        return {h.doc_id: tuple(sorted(h.entities)) for h in heads if h.entities}

    def _mentions(self, pk: str, prefix: str, after: str | None) -> Iterator[MentionItem]:
        condition = self._mention.sk.startswith(prefix)
        if after is not None:
            # Past every mention of `after`: its own prefix, then the highest character.
            start = entity_mention_prefix(after) + "#\U0010ffff"
            if start > prefix:
                condition = self._mention.sk.between(start, prefix + "\U0010ffff")
        with storage_errors():
            yield from self._mention.query(pk, condition, consistent_read=True)


def _mention(item: MentionItem) -> Mention:
    return Mention(
        kind=item.kind,  # type: ignore[arg-type]
        id=item.doc_id,
        created_at=item.created_at,
        session_id=item.session_id,
    )


def _entity(key: str, held: list[Mention], mentions: int) -> Entity:
    newest = sorted(held, key=lambda m: (m.created_at, m.id), reverse=True)[:mentions]
    return Entity(key, len(held), tuple(newest))


def linked_index(
    index: SearchIndex, table_name: str | None, region: str | None, host: str | None
) -> SearchIndex:
    """The cloud's index writing entity links into the table beside it (without a table, none)."""
    if not table_name or not region:
        return index
    return LinkedIndex(index, DynamoEntityLinks(table_name, region, host))
