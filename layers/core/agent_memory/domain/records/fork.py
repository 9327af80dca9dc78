"""Fork copies what the agent knows: its active agent-scope records, each at version 1."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from ..kernel.models import utcnow
from ..search import SearchService
from .models import (
    Provenance,
    Record,
    RecordOperation,
    RecordQuery,
    RecordVersion,
    RecordWrite,
    to_doc,
)

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)

# One store transaction a batch: DynamoDB takes 100 actions and 4 MB, and a copy writes its
# head and its version (its content twice) beside the agent's check.
BATCH_RECORDS = 24
BATCH_BYTES = 1024 * 1024
# Records read from the source a page at a time.
PAGE = 200


def copy_agent_records(
    store: Store, search: SearchService | None, tenant: str, source: str, target: str, actor: str
) -> int:
    """Copy `source`'s ACTIVE live agent-scope records to `target` under the same ids, each at
    version 1 with provenance naming the fork and no link to records left behind. Session
    records stay with their sessions, and superseded, deleted and preview ones are not what
    the agent knows. Indexed with the write on the embedded shape (the stream indexer does it
    in the cloud). Returns how many were copied."""
    query = RecordQuery(include_agent=True, session_id=None, preview="live")
    copied = 0
    before: str | None = None
    while True:
        page = store.find_records(tenant, source, query, PAGE, before)
        for batch in _batches(page):
            _write(store, search, tenant, target, batch, actor)
            copied += len(batch)
        if len(page) < PAGE:
            break
        before = page[-1].id
    logger.info(
        "fork copied records", extra={"source": source, "target": target, "records": copied}
    )
    return copied


def _write(
    store: Store,
    search: SearchService | None,
    tenant: str,
    target: str,
    records: list[Record],
    actor: str,
) -> None:
    now = utcnow()
    by = Provenance(actor=actor)
    copies = [
        r.model_copy(
            update={
                "agent_id": target,
                "version": 1,
                "replaces": None,
                "replaced_by": None,
                "provenance": by,
                "updated_at": now,
            }
        )
        for r in records
    ]
    # Indexed by words in the same write; their vectors are queued for the background embedder.
    indexed = {d.id: d for d in (search.docs_for(copies) if search is not None else [])}
    store.write_records(
        tenant,
        target,
        [
            RecordWrite(
                record=copy,
                expected_version=None,
                versions=[
                    RecordVersion(
                        record=copy, operation=RecordOperation.CREATE, changed_by=by, at=now
                    )
                ],
                index=indexed.get(copy.id),
            )
            for copy in copies
        ],
    )


def _batches(records: list[Record]) -> list[list[Record]]:
    batches: list[list[Record]] = [[]]
    size = 0
    for record in records:
        record_bytes = 2 * len(json.dumps(to_doc(record)))
        if batches[-1] and (len(batches[-1]) >= BATCH_RECORDS or size + record_bytes > BATCH_BYTES):
            batches.append([])
            size = 0
        batches[-1].append(record)
        size += record_bytes
    return [b for b in batches if b]
