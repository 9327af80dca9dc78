"""`agent-memory reindex` in the cloud shape: the whole table replayed through the stream
indexer's own document builders, then the index swept of what the table no longer holds.

Run it after a point-in-time restore (docs/backup.md): the index is derived from the table by
the stream, which a restore does not replay, so a restored table and its index disagree both
ways. Two passes:

1. One paged Scan of the table. Each page's items are handed to StreamIndexer.replay as their
   INSERTs, so a record head, a file memory head, a searchable history event (inline or in S3)
   and a turn's fact keys become exactly the documents the stream makes of them, embedded by the
   configured embedder, and written to the index a page at a time. The index's versions make it
   idempotent: a document already there at its version is left alone. After each page the
   Scan's position is told as a cursor; `start` resumes from one.
2. A sweep of the index: every document it lists (of the tenant, of the agent) whose item is not
   in the table is deleted (BatchGetItem of the items' keys, a hundred at a time). An event part
   or fact key document is the event's: it goes when the event's id marker is gone.

OpenSearch lists every document, including those of agents the table no longer holds. S3
Vectors names an agent's index by a digest of tenant and agent, which cannot be read back: its
sweep lists the indexes of the agents the table holds (one more Scan, of agent heads), so the
vectors of an agent the restored table lacks stay (never answered: every hit is re-read from
the table) and `not_swept` says so.

Embedding: the index keeps each document's version, model id and a digest of the whole stored
copy (vector included), not of its text, so whether a text changed cannot be told before it is
embedded. Every document is embedded again; a copy whose version and content are unchanged is
then not rewritten (OpenSearchIndex.upsert).
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any

from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

from ...domain.history.models import event_of
from ...domain.search.index import DocKind, SearchIndex, StoredDoc
from . import keys
from .stream_indexer import StreamIndexer
from .transactions import unavailable

logger = logging.getLogger(__name__)

PAGE = 100  # items a Scan page; their documents are embedded and written together
BATCH_GET = 100  # BatchGetItem's keys a request


@dataclass
class CloudReindexed:
    """What one run read and wrote (or, dry, would write)."""

    scanned: int = 0  # items read
    items: int = 0  # of them, the tenant's or agent's asked for
    documents: int = 0  # documents they make, upserted
    swept: int = 0  # documents the index listed
    removed: int = 0  # of them, whose item the table does not hold, deleted
    dry_run: bool = False
    cursor: str | None = None  # where the Scan stopped; None once it read the whole table
    not_swept: str | None = None


def encode_cursor(start: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(start, separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str) -> dict[str, Any]:
    """A Scan position from a cursor this command printed; ValueError for anything else."""
    try:
        start = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        start = None
    valid = isinstance(start, dict) and set(start) == {"pk", "sk"}
    if not valid or not all(isinstance(v, dict) and "S" in v for v in start.values()):
        raise ValueError(f"{cursor!r} is not a cursor `agent-memory reindex` printed")
    return dict(start)


def _mine(pk: str, tenant: str | None, agent_id: str | None) -> bool:
    if tenant is None and agent_id is None:
        return True
    owner = keys.agent_of(pk)
    if owner is None:
        return False
    return (tenant is None or owner[0] == tenant) and (agent_id is None or owner[1] == agent_id)


def _inserted(item: dict[str, Any]) -> DynamoDBRecord:
    named = {"pk": item["pk"], "sk": item["sk"]}
    return DynamoDBRecord({"eventName": "INSERT", "dynamodb": {"Keys": named, "NewImage": item}})


def _scan(store: Any, start: dict[str, Any] | None, page: int, **kw: Any) -> dict[str, Any]:
    try:
        found: dict[str, Any] = store.connection.scan(
            store.table_name, exclusive_start_key=start, limit=page, **kw
        )
    except Exception as exc:  # pynamodb's ScanError: the table is unreachable
        raise unavailable(exc) from exc  # type: ignore[arg-type]
    return found


def reindex_table(
    store: Any,
    indexer: StreamIndexer,
    tenant: str | None = None,
    agent_id: str | None = None,
    start: dict[str, Any] | None = None,
    dry_run: bool = False,
    page: int | None = None,
    progress: Callable[[CloudReindexed], None] | None = None,
) -> CloudReindexed:
    """Replay `store`'s table (a DynamoStore) into `indexer`'s index, from `start`, then sweep
    the index. `dry_run` counts and writes nothing (give it an indexer without an embedder)."""
    done = CloudReindexed(dry_run=dry_run)
    while True:
        found = _scan(store, start, page or PAGE)
        raw = found.get("Items", [])
        done.scanned += len(raw)
        mine = [item for item in raw if _mine(item["pk"]["S"], tenant, agent_id)]
        done.items += len(mine)
        done.documents += indexer.replay([_inserted(item) for item in mine], write=not dry_run)
        start = found.get("LastEvaluatedKey")
        done.cursor = encode_cursor(start) if start else None
        if progress is not None:
            progress(done)
        if not start:
            break
    sweep(store, indexer.index, tenant, agent_id, done)
    logger.info("reindexed", extra={k: v for k, v in done.__dict__.items() if k != "cursor"})
    return done


def sweep(
    store: Any,
    index: SearchIndex,
    tenant: str | None,
    agent_id: str | None,
    done: CloudReindexed,
) -> None:
    """Delete the index's documents whose item the table does not hold (count them, dry)."""
    listed = index.stored(tenant, agent_id)
    if listed is None:
        agents = _agents(store, tenant, agent_id)
        listed = chain.from_iterable(index.stored(t, a) or () for t, a in agents)
        done.not_swept = (
            "documents of agents the table does not hold: this index names an agent's "
            "documents by a digest of tenant and agent, which cannot be listed back"
        )
    while chunk := list(islice(listed, BATCH_GET)):
        done.swept += len(chunk)
        gone = _gone(store, chunk)
        done.removed += len(gone)
        if done.dry_run or not gone:
            continue
        by: dict[tuple[str, str, DocKind], list[str]] = {}
        for doc in gone:
            by.setdefault((doc.tenant, doc.agent_id, doc.kind), []).append(doc.id)
        for (t, a, kind), ids in by.items():
            index.delete(t, a, kind, ids)


def _agents(store: Any, tenant: str | None, agent_id: str | None) -> Iterator[tuple[str, str]]:
    """The agents the table holds (their heads, read by a Scan of keys only)."""
    start = None
    while True:
        found = _scan(store, start, 1000, attributes_to_get=["pk", "sk"])
        for item in found.get("Items", []):
            pk, sk = item["pk"]["S"], item["sk"]["S"]
            if pk.startswith("T#") and pk.endswith("#AGENTS") and sk.startswith(keys.AGENT):
                owner = (pk[2 : -len("#AGENTS")], sk[len(keys.AGENT) :])
                if tenant in (None, owner[0]) and agent_id in (None, owner[1]):
                    yield owner
        start = found.get("LastEvaluatedKey")
        if not start:
            return


def _item_key(doc: StoredDoc) -> tuple[str, str] | None:
    """The table item a document stands for; None when it cannot be told (an event document
    without its session), and such a document is kept."""
    if doc.kind == "record":
        return keys.records_pk(doc.tenant, doc.agent_id), keys.record_sk(doc.id)
    if doc.kind == "file":
        return keys.files_pk(doc.tenant, doc.agent_id), keys.file_sk(doc.id)
    if doc.session_id is None:
        return None
    # `{event}.{part}` or `{event}.k`, its fact keys; the event named with its session when it
    # was kept before ids included the session (history.models.index_id)
    pk = keys.session_pk(doc.tenant, doc.agent_id, doc.session_id)
    return pk, keys.event_id_sk(event_of(doc.id))


def _gone(store: Any, docs: Iterable[StoredDoc]) -> list[StoredDoc]:
    wanted: dict[StoredDoc, tuple[str, str]] = {}
    gone: list[StoredDoc] = []
    for doc in docs:
        try:
            key = _item_key(doc)
        except ValueError:  # an id no key can hold names no item
            gone.append(doc)
            continue
        if key is not None:
            wanted[doc] = key
    held = _held(store, set(wanted.values()))
    return gone + [doc for doc, key in wanted.items() if key not in held]


def _held(store: Any, wanted: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Which of these keys the table holds (BatchGetItem, unprocessed keys asked again)."""
    held: set[tuple[str, str]] = set()
    pending = sorted(wanted)
    while pending:
        asked, pending = pending[:BATCH_GET], pending[BATCH_GET:]
        try:
            response = store.connection.batch_get_item(
                store.table_name,
                [{"pk": pk, "sk": sk} for pk, sk in asked],
                consistent_read=True,
                attributes_to_get=["pk", "sk"],
            )
        except Exception as exc:  # pynamodb's GetError
            raise unavailable(exc) from exc  # type: ignore[arg-type]
        for item in response.get("Responses", {}).get(store.table_name, []):
            held.add((item["pk"]["S"], item["sk"]["S"]))
        again = response.get("UnprocessedKeys", {}).get(store.table_name, {}).get("Keys", [])
        pending += [(k["pk"]["S"], k["sk"]["S"]) for k in again]
    return held
