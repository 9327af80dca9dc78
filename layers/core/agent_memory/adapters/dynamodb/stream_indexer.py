"""DynamoDB Streams -> search index: the stream indexer's logic (functions/indexer is its handler,
cloud_workers.build_indexer wires it).

The table streams NEW_AND_OLD_IMAGES. Of its items, two kinds are searchable heads:

    record head  pk T#{tenant}#A#{agentId}#R  sk R#{recordId}  `doc`: the record (records.to_doc)
    file head    pk T#{tenant}#A#{agentId}#F  sk F#{path}      path, content, version, updated_at

An INSERT or MODIFY of a head is embedded and upserted; a REMOVE (an agent's deletion walking its
partitions, a file deleted or renamed away) deletes the document. History events (`EV#` items of
a session partition, inline or in S3) are indexed in parts as they are appended; search_history
re-checks that their turn committed. A turn item's fact keys (the facts its review proposed from
its events) are indexed as each event's key document when they change (stream_keys). Every
other item is ignored.

Idempotent by (id, version): the index never lets an older version overwrite a newer one, so a
retried or replayed batch changes nothing. Within one batch only the last change of each item is
applied: it carries the item's whole state, and indexing the earlier ones would leave copies the
index cannot see yet (AOSS makes a write searchable only after its refresh interval). A turn
item's changes are applied as one, from the state before the batch to its last change, in place
of the first (stream_keys.turn_spans says why).

A batch's documents are embedded record by record, then written to the index together: one
upsert of every document and one delete for each agent and kind (two OpenSearch requests a batch
rather than two a record; benchmarks/RESULTS.md, "AWS calls per operation"). Failures are per
record (ReportBatchItemFailures): a record that cannot be read or embedded is reported; when the
index refuses the batch's writes, they are sent again record by record and only the records
whose writes fail are reported. Lambda retries from the first failed record and, after its
retries, sends the batch's description to the on-failure destination.

Deliberately not done: an agent head's REMOVE does not trigger `delete_agent`. The agent head
lives in another partition, so its stream record is not ordered with the agent's record heads;
a late or retried `delete_agent` could erase a re-created agent's new documents. The heads'
own REMOVEs, ordered with their INSERTs, remove every document of a deleted agent.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
    DynamoDBRecordEventName,
)

from ...domain.history.context import event_doc
from ...domain.history.keys import key_doc
from ...domain.history.models import HistoryEvent, index_key, names_by_id_alone, part_id
from ...domain.history.service import with_context
from ...domain.kernel.errors import StorageUnavailable
from ...domain.kernel.ids import new_id
from ...domain.kernel.models import utcnow
from ...domain.records.models import Record, from_doc
from ...domain.search.embeddings import Embedder
from ...domain.search.entities import entities
from ...domain.search.index import DocKind, IndexDoc, SearchIndex
from ...domain.search.service import record_doc
from ...domain.usage.models import Usage
from . import keys
from .stream_keys import key_change, superseded, turn_spans

logger = logging.getLogger(__name__)

# Titan Text Embeddings V2 takes at most 50,000 characters (8,192 tokens); records and files may
# hold 100 KiB. The words of the whole text are indexed; the meaning of its first 20,000
# characters (about 5,000 tokens of English, 8,000 of dense code) is.
EMBED_MAX_CHARS = 20_000


@dataclasses.dataclass
class Writes:
    """What one stream record asks of the index, gathered so that a batch's writes go to the
    index together (one search for stored copies and one bulk request for the whole batch, not
    for each record)."""

    sequence: str
    upserts: list[IndexDoc] = dataclasses.field(default_factory=list)
    deletes: list[tuple[str, str, DocKind, list[str]]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class HeadKey:
    """Which document a head item is, read from its key alone."""

    tenant: str
    agent_id: str
    kind: DocKind
    id: str


def _by_ttl(record: DynamoDBRecord) -> bool:
    """Whether DynamoDB's TTL sweeper made the change (not a caller's delete)."""
    who = record.user_identity
    return who.get("type") == "Service" and who.get("principalId") == "dynamodb.amazonaws.com"


def head_key(pk: str, sk: str) -> HeadKey | None:
    """The document a record or file head stands for; None for every other item. The key
    layout is keys.py's alone: this only asks it which item a key names."""
    head = keys.parse_head(pk, sk)
    return HeadKey(*head) if head is not None else None


def file_doc(key: HeadKey, image: dict[str, Any]) -> IndexDoc:
    """A memory's document. Its version is the time of its last change, in microseconds, as
    the embedded index keeps it: a memory deleted and created again starts again at version
    1, and the old copy's higher number would keep the new content out of the index."""
    path = str(image["path"])
    updated = datetime.fromisoformat(str(image["updated_at"]))
    text = f"{path}\n{image.get('content') or ''}"
    return IndexDoc(
        tenant=key.tenant,
        agent_id=key.agent_id,
        kind="file",
        id=path,
        version=int(updated.timestamp() * 1_000_000),
        text=text,
        created_at=updated,
        scope="agent",
        entities=entities(text),
    )


def history_event(
    image: dict[str, Any], fetch: Callable[[str, str], str] | None
) -> HistoryEvent | None:
    """The event an `EV#` item holds, inline or in S3 (None when it cannot be read)."""
    raw = image.get("doc")
    if raw is None and image.get("blob_bucket") and fetch is not None:
        raw = fetch(str(image["blob_bucket"]), str(image["blob_key"]))
    return HistoryEvent.model_validate(json.loads(str(raw))) if raw else None


def event_docs(event: HistoryEvent, before: Sequence[str] = ()) -> list[IndexDoc]:
    """One document a part, the first found by the event's words and, at a lower weight, by the
    words of the messages said `before` it (HistoryEvent.word_texts); each found by meaning. Every event of a session is indexed as it is appended; search
    re-checks that its turn committed, so a rolled-back turn's events are never returned."""
    return [
        event_doc(event, n, words, before, event.preview)
        for n, words in enumerate(event.word_texts(), start=1)
    ]


class StreamIndexer:
    """Indexes a batch of the table's stream. `embedder` None indexes words only; `fetch`
    reads an S3 object (bucket, key) for history events too large for an item."""

    def __init__(
        self,
        index: SearchIndex,
        embedder: Embedder | None,
        fetch: Callable[[str, str], str] | None = None,
        before: Callable[[HistoryEvent], list[str]] | None = None,
        add_usage: Callable[[str, str, list[Usage]], None] | None = None,
        on_purged: Callable[[Record], None] | None = None,
    ) -> None:
        self._index = index
        self._embedder = embedder
        self._fetch = fetch
        # Where each embedding's usage is kept (purpose embed, on the agent and, for a history
        # event or a record, on the turn that wrote it): Store.add_usage; None keeps none.
        self._add_usage = add_usage
        self._usage: dict[tuple[str, str], list[Usage]] = {}
        # The messages said before a history event, which find it too (as in the embedded
        # shape: agent_memory.domain.history.service.said_before); None: the event alone.
        self._before = before
        # Told of each record head DynamoDB's TTL removed (an expired record's purge): the
        # audit trail keeps it, as the embedded sweeper's purge is kept.
        self._on_purged = on_purged

    def process(self, event: dict[str, Any], context: Any = None) -> dict[str, Any]:
        """Index every change of the batch; the response names the ones that failed
        (`batchItemFailures`). Raises when all of them failed, so Lambda retries the batch."""
        records = event.get("Records") or []
        # A turn item's changes are applied as one in place of its first (stream_keys).
        merged, later = turn_spans(records)
        skip = (superseded(records) - merged.keys()) | later
        # The processor logs each failed record with its traceback on this module's logger.
        processor = BatchProcessor(event_type=EventType.DynamoDBStreams, logger=logger)
        gathered: list[Writes] = []

        def handle(record: DynamoDBRecord) -> None:
            sequence = record.dynamodb.sequence_number if record.dynamodb is not None else None
            if sequence in skip:
                return
            if sequence in merged:
                record = DynamoDBRecord(merged[sequence])
            gathered.append(self.writes_of(record))

        try:
            response = dict(
                process_partial_response(
                    event=event, record_handler=handle, processor=processor, context=context
                )
            )
            failed = self._write(gathered)
        finally:
            self._keep_usage()
        if not failed:
            return response
        reported = [*response.get("batchItemFailures", []), *failed]
        if len(reported) == len(records):
            raise StorageUnavailable("the search index refused every change of the batch")
        # Lambda resumes from the lowest failed sequence number (ReportBatchItemFailures).
        reported.sort(key=lambda item: int(item["itemIdentifier"]))
        return {**response, "batchItemFailures": reported}

    def _write(self, gathered: Sequence[Writes]) -> list[dict[str, str]]:
        """Send the batch's writes together; when the index refuses them, send them record by
        record so only the records whose writes fail are reported (and retried)."""
        if not any(w.upserts or w.deletes for w in gathered):
            return []
        try:
            self._send(gathered)
            return []
        except StorageUnavailable:
            logger.warning(
                "the batch's index writes failed together; writing them record by record",
                extra={"records": len(gathered)},
            )
        failed = []
        for writes in gathered:
            try:
                self._send([writes])
            except StorageUnavailable:
                logger.exception("index writes failed", extra={"sequence": writes.sequence})
                failed.append({"itemIdentifier": writes.sequence})
        return failed

    def _send(self, gathered: Sequence[Writes]) -> None:
        upserts = [doc for writes in gathered for doc in writes.upserts]
        if upserts:
            self._index.upsert(upserts)
        deletes: dict[tuple[str, str, DocKind], list[str]] = {}
        for writes in gathered:
            for tenant, agent_id, kind, ids in writes.deletes:
                deletes.setdefault((tenant, agent_id, kind), []).extend(ids)
        for (tenant, agent_id, kind), ids in deletes.items():
            self._index.delete(tenant, agent_id, kind, ids)

    def _keep_usage(self) -> None:
        """The batch's embeddings as usage, one write an agent. Bookkeeping: a failure is
        logged, never the batch's (its documents are indexed; a retry would embed again)."""
        gathered, self._usage = self._usage, {}
        if self._add_usage is None:
            return
        for (tenant, agent_id), rows in gathered.items():
            try:
                self._add_usage(tenant, agent_id, rows)
            except Exception:  # an agent deleted meanwhile, a throttled write
                logger.exception("embedding usage not kept", extra={"agent_id": agent_id})

    @property
    def index(self) -> SearchIndex:
        return self._index

    def replay(self, inserts: Sequence[DynamoDBRecord], write: bool = True) -> int:
        """Index a table's items, each as the stream its INSERT (`agent-memory reindex`); how
        many documents they make (written when `write`)."""
        try:
            gathered = [self.writes_of(insert) for insert in inserts]
            if write:
                self._send(gathered)
        finally:
            self._keep_usage()
        return sum(len(w.upserts) for w in gathered)

    def apply(self, record: DynamoDBRecord) -> None:
        """Apply one change of one item to the index."""
        self._send([self.writes_of(record)])

    def writes_of(self, record: DynamoDBRecord) -> Writes:
        """What one change of one item asks of the index (its documents embedded already)."""
        stream = record.dynamodb
        writes = Writes(str(stream.sequence_number) if stream is not None else "")
        if stream is None:
            return writes
        named = stream.keys
        pk, sk = str(named.get("pk", "")), str(named.get("sk", ""))
        if keys.is_history_event(pk, sk):
            self._event_writes(record, writes)
            return writes
        if keys.is_turn(pk, sk):
            self._key_writes(record, writes)
            return writes
        key = head_key(pk, sk)
        if key is None:
            return writes
        if record.event_name is DynamoDBRecordEventName.REMOVE:
            # A file's document is named by its path, which a long path's key holds cut.
            old = stream.old_image or {}
            doc_id = str(old["path"]) if key.kind == "file" and old.get("path") else key.id
            writes.deletes.append((key.tenant, key.agent_id, key.kind, [doc_id]))
            if key.kind == "record" and self._on_purged is not None and _by_ttl(record):
                self._on_purged(from_doc(json.loads(old["doc"])))
            return writes
        image = stream.new_image
        if key.kind == "record":
            head = from_doc(json.loads(image["doc"]))
            on = (head.provenance.session_id, head.provenance.turn_id)
            writes.upserts.append(self._embedded(record_doc(head), on=on))
        else:
            writes.upserts.append(self._embedded(file_doc(key, image)))
        return writes

    def _event_writes(self, record: DynamoDBRecord, writes: Writes) -> None:
        stream = record.dynamodb
        assert stream is not None
        if record.event_name is DynamoDBRecordEventName.REMOVE:
            image = stream.old_image or {}
            old = history_event(image, None)
            if old is not None:
                ids = [d.id for d in event_docs(old)]
                ids += names_by_id_alone(ids)
                writes.deletes.append((old.tenant, old.agent_id, "event", ids))
            elif image.get("parts") and image.get("event_id"):
                # Held in S3: its parts are named by the count the item keeps. (An item
                # written before the count was kept leaves its parts until a re-index.)
                event = str(image["event_id"])
                name = index_key(
                    event, str(image["session_id"]), str(image["turn_id"]), int(image["sequence"])
                )
                ids = [part_id(name, n) for n in range(1, int(image["parts"]) + 1)]
                ids += names_by_id_alone(ids)
                writes.deletes.append((str(image["tenant"]), str(image["agent_id"]), "event", ids))
            return
        event = history_event(stream.new_image, self._fetch)
        if event is None:
            raise ValueError("a history event item whose event cannot be read")
        if not event.searchable:
            return  # kept for post-turn extraction only
        before = self._before(event) if self._before else []
        docs = event_docs(event, before)
        # An event kept before ids included the session is indexed under a name with its
        # session now: the documents it had under its id alone are no event's any more.
        if stale := names_by_id_alone(d.id for d in docs):
            writes.deletes.append((event.tenant, event.agent_id, "event", stale))
        writes.upserts.extend(
            self._embedded(
                doc,
                with_context(event.meaning(part), before),
                on=(event.session_id, event.turn_id),
            )
            for doc, part in zip(docs, event.parts, strict=True)
        )

    def _key_writes(self, record: DynamoDBRecord, writes: Writes) -> None:
        """The key documents of the turn's events whose fact keys the change changed."""
        stream = record.dynamodb
        assert stream is not None
        removed = record.event_name is DynamoDBRecordEventName.REMOVE
        change = key_change(stream.old_image, None if removed else stream.new_image)
        if change is None:
            return
        if change.delete:
            writes.deletes.append((change.tenant, change.agent_id, "event", change.delete))
        writes.upserts.extend(
            self._embedded(
                key_doc(change.tenant, change.agent_id, each, change.version, embed=False),
                on=(each.session_id, each.turn_id),
            )
            for each in change.upsert
        )

    def _embedded(
        self,
        doc: IndexDoc,
        meaning: str | None = None,
        on: tuple[str | None, str | None] = (None, None),
    ) -> IndexDoc:
        """The document with the vector of `meaning` (default: its own text); its usage is
        kept on the agent and, `on`, the session and turn that wrote it."""
        if self._embedder is None:
            return doc
        embedding = self._embedder.embed([(meaning or doc.text)[:EMBED_MAX_CHARS]])
        self._usage.setdefault((doc.tenant, doc.agent_id), []).append(
            Usage(
                id=new_id("use"),
                agent_id=doc.agent_id,
                session_id=on[0],
                turn_id=on[1],
                purpose="embed",
                model_id=embedding.model_id,
                input_tokens=embedding.input_tokens,
                at=utcnow(),
            )
        )
        vector = [float(x) for x in embedding.vectors[0]]
        return dataclasses.replace(doc, vector=vector, model_id=embedding.model_id)
