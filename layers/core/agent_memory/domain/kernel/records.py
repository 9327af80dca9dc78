"""The record entities every capability speaks of: a record, its versions and who made them.

Records are the records capability's (domain/records/), but a turn stages them, the index
ranks them and a review cites them, so the entities sit in the kernel and the capability
re-exports them beside its own models.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from .models import Entity

RecordScope = Literal["session", "agent"]

SUMMARY_MAX_CHARS = 500
CONTENT_MAX_BYTES = 100 * 1024
LABEL_VALUE_MAX_CHARS = 256


class RecordStatus(StrEnum):
    ACTIVE = "ACTIVE"
    SUPERSEDED = "SUPERSEDED"
    DELETED = "DELETED"
    # Its expiresAt has passed. A head still stored as ACTIVE reads as EXPIRED from that
    # instant on (Record.seen_at); the sweeper writes the status down later.
    EXPIRED = "EXPIRED"
    # A post-turn review's write waiting for an app's decision (harness.memory.extraction
    # .approval "review"): kept with its evidence, but no memory yet (never recalled, searched,
    # listed by default, pinned or counted).
    PENDING = "PENDING"
    # A pending write an app refused: kept, with who refused it, and never applied.
    REJECTED = "REJECTED"


class Provenance(Entity):
    """Who made a change: the turn's execution and invocation, or an app through the API."""

    actor: str
    execution: str | None = None
    invocation: str | None = None
    manifest_version: int | None = Field(default=None, serialization_alias="manifestVersion")
    session_id: str | None = Field(default=None, serialization_alias="sessionId")
    turn_id: str | None = Field(default=None, serialization_alias="turnId")
    trigger_run_id: str | None = Field(default=None, serialization_alias="triggerRunId")
    # A post-turn review's record cites the messages it came from (history event ids, or the
    # ids the events carried in their metadata, such as LoCoMo's dia_id).
    sources: list[str] = Field(default_factory=list)


class ProposedWrite(Entity):
    """What a pending record proposes: a new memory (`add`), a new memory in place of `target`
    (`replace`), or the end of `target` (`delete`); `targetVersion` is the target's version
    when the review proposed it, so an approval can tell whether the target moved since."""

    action: Literal["add", "replace", "delete"]
    target: str | None = None
    target_version: int | None = Field(default=None, serialization_alias="targetVersion")


class Record(Entity):
    tenant: str = Field(exclude=True)
    agent_id: str = Field(serialization_alias="agentId")
    id: str
    scope: RecordScope
    session_id: str | None = Field(default=None, serialization_alias="sessionId")
    summary: str
    content: str | None = None
    kind: str
    labels: dict[str, str] = Field(default_factory=dict)
    pinned: bool = False
    status: RecordStatus = RecordStatus.ACTIVE
    replaces: str | None = None
    replaced_by: str | None = Field(default=None, serialization_alias="replacedBy")
    preview: bool = False
    # Set on a review's write made while the agent's writes await approval (status PENDING),
    # and kept once it is approved or rejected.
    proposal: ProposedWrite | None = None
    version: int = 1
    provenance: Provenance
    created_at: datetime = Field(serialization_alias="createdAt")
    updated_at: datetime = Field(serialization_alias="updatedAt")
    expires_at: datetime | None = Field(default=None, serialization_alias="expiresAt")

    def expired_at(self, now: datetime) -> bool:
        """Whether this live record has reached its expiresAt by `now`."""
        return (
            self.status is RecordStatus.ACTIVE
            and self.expires_at is not None
            and self.expires_at <= now
        )

    def seen_at(self, now: datetime) -> Record:
        """The record as a read at `now` shows it: EXPIRED once its expiresAt has passed,
        whether or not the sweeper has written that down yet."""
        if self.expired_at(now):
            return self.model_copy(update={"status": RecordStatus.EXPIRED})
        return self

    def visible_to(self, session_id: str | None, read_scopes: Sequence[str]) -> bool:
        if self.scope == "agent":
            return "agent" in read_scopes
        return "session" in read_scopes and session_id is not None and self.session_id == session_id


class RecordOperation(StrEnum):
    CREATE = "create"
    SUPERSEDE = "supersede"
    DELETE = "delete"
    # An app set or cleared expiresAt.
    SET_EXPIRY = "set_expiry"
    # The sweeper wrote down that expiresAt has passed.
    EXPIRE = "expire"
    APPROVE = "approve"
    REJECT = "reject"
    # A consolidation unpinned it to keep the pinned list within its budget.
    UNPIN = "unpin"
    # A review or a consolidation found the same fact said again elsewhere: the record cites
    # those messages too (provenance.sources), its text unchanged.
    RESTATE = "restate"


class RecordVersion(Entity):
    """One version of a record: the whole record as that change left it, and who changed it."""

    record: Record
    operation: RecordOperation
    changed_by: Provenance = Field(serialization_alias="changedBy")
    at: datetime


class Execution(Entity):
    """One call of a native tool on a turn, as the transcript records it."""

    id: str
    turn_id: str = Field(serialization_alias="turnId")
    tool: str
    input: dict[str, Any]
    output: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    caller: dict[str, Any]
    retrieved: bool = False
    usage: list[dict[str, Any]] = Field(default_factory=list)
    created_at: datetime = Field(serialization_alias="createdAt")
    # The file-memory spec: each memory tool call is a tool.completed with kind: "runtime"
    # (the runtime serves it in the turn's own record, so a replayed write applies once).
    kind: Literal["runtime"] | None = None


def to_doc(record: Record) -> dict[str, Any]:
    """The storage form of a record: field names, JSON types, tenant included."""
    return {**record.model_dump(mode="json"), "tenant": record.tenant}


def from_doc(doc: dict[str, Any]) -> Record:
    return Record.model_validate(doc)


def version_to_doc(version: RecordVersion) -> dict[str, Any]:
    return {
        "record": to_doc(version.record),
        "operation": version.operation.value,
        "changed_by": version.changed_by.model_dump(mode="json"),
        "at": version.at.isoformat(),
    }


def version_from_doc(doc: dict[str, Any]) -> RecordVersion:
    return RecordVersion.model_validate(doc)
