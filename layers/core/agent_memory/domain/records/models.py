"""Record memory: durable facts an agent keeps, each change a version, with its provenance.

The entities (a record, its versions, its provenance) are the kernel's, re-exported here;
what is the capability's own is how a record is written and how records are filtered.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import ConfigDict, Field

from ..kernel.deferred import DeferredModel
from ..kernel.models import utcnow
from ..kernel.records import (
    CONTENT_MAX_BYTES,
    LABEL_VALUE_MAX_CHARS,
    SUMMARY_MAX_CHARS,
    Execution,
    ProposedWrite,
    Provenance,
    Record,
    RecordOperation,
    RecordScope,
    RecordStatus,
    RecordVersion,
    from_doc,
    to_doc,
    version_from_doc,
    version_to_doc,
)
from ..search import IndexDoc


class RecordWrite(DeferredModel):
    """A record's new head and the versions that lead to it, written only while the stored
    head is still at expected_version (None: the record must not exist yet).

    `index` is the head's search document when the index lives in the store (embedded shape):
    the store writes it in the same transaction. Other stores ignore it."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    record: Record
    expected_version: int | None
    versions: list[RecordVersion]
    index: IndexDoc | None = None


class RecordQuery(DeferredModel):
    """Filters a store applies before anything is ranked. Empty means no filter on that field."""

    model_config = ConfigDict(frozen=True)

    statuses: frozenset[RecordStatus] = frozenset({RecordStatus.ACTIVE})
    kinds: frozenset[str] = frozenset()
    labels: dict[str, str] = Field(default_factory=dict)
    ids: frozenset[str] = frozenset()
    # Scope: agent-scope records when include_agent; session-scope ones of session_id.
    include_agent: bool = True
    session_id: str | None = None
    include_all_sessions: bool = False
    preview: Literal["live", "any", "only"] = "live"
    pinned: bool | None = None
    # The instant the statuses are judged at: a record whose expiresAt is at or before it is
    # EXPIRED, not ACTIVE. Every read takes the clock when it is asked.
    at: datetime = Field(default_factory=utcnow)

    def matches(self, record: Record) -> bool:
        record = record.seen_at(self.at)
        if self.statuses and record.status not in self.statuses:
            return False
        if self.kinds and record.kind not in self.kinds:
            return False
        if any(record.labels.get(k) != v for k, v in self.labels.items()):
            return False
        if self.ids and record.id not in self.ids:
            return False
        if self.pinned is not None and record.pinned != self.pinned:
            return False
        if self.preview == "live" and record.preview:
            return False
        if self.preview == "only" and not record.preview:
            return False
        if record.scope == "agent":
            return self.include_agent
        return self.include_all_sessions or (
            self.session_id is not None and record.session_id == self.session_id
        )


__all__ = [
    "CONTENT_MAX_BYTES",
    "Execution",
    "LABEL_VALUE_MAX_CHARS",
    "ProposedWrite",
    "Provenance",
    "Record",
    "RecordOperation",
    "RecordQuery",
    "RecordScope",
    "RecordStatus",
    "RecordVersion",
    "RecordWrite",
    "SUMMARY_MAX_CHARS",
    "from_doc",
    "to_doc",
    "version_from_doc",
    "version_to_doc",
]
