"""File memories as stored: heads, versions, and the writes that change them."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Literal

from pydantic import ConfigDict, Field

from ..kernel.deferred import DeferredModel
from ..kernel.models import Entity
from ..search import IndexDoc

FileOperation = Literal["create", "update", "delete", "rename"]
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_DESCRIPTION = re.compile(r"^description:[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def sha256(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()


def description_of(content: str) -> str | None:
    """The `description` of a memory's YAML frontmatter, when it has one (one line, unquoted)."""
    match = _FRONTMATTER.match(content)
    if not match:
        return None
    found = _DESCRIPTION.search(match.group(1))
    if not found:
        return None
    value = found.group(1)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value or None


class FileMemory(Entity):
    """The current content of one memory path."""

    tenant: str = Field(exclude=True)
    agent_id: str = Field(serialization_alias="agentId")
    path: str
    content: str
    bytes: int
    content_sha256: str = Field(serialization_alias="contentSha256")
    description: str | None = None
    version: int
    updated_at: datetime = Field(serialization_alias="updatedAt")
    updated_by: str = Field(serialization_alias="updatedBy")

    def summary(self) -> dict[str, object]:
        """The listing form: everything but the content."""
        return self.model_dump(mode="json", by_alias=True, exclude={"content"})


class FileVersion(Entity):
    """One change: who made it, and the content it left (None for a delete)."""

    id: str
    agent_id: str = Field(serialization_alias="agentId")
    path: str
    operation: FileOperation
    from_path: str | None = Field(default=None, serialization_alias="fromPath")
    actor: str
    session_id: str | None = Field(default=None, serialization_alias="sessionId")
    turn_id: str | None = Field(default=None, serialization_alias="turnId")
    trigger_run_id: str | None = Field(default=None, serialization_alias="triggerRunId")
    version: int
    content: str | None = None
    content_sha256: str | None = Field(default=None, serialization_alias="contentSha256")
    at: datetime


class PreviewFile(DeferredModel):
    """A preview turn's change to one path, as preview turns see it from then on (`content`
    None: deleted for them). Applied nowhere live: live turns and the management API never see
    it, as they never see a preview record."""

    model_config = ConfigDict(frozen=True)

    path: str
    content: str | None
    turn_id: str
    at: datetime


class FileWrite(DeferredModel):
    """One path's change: its new head (None deletes it) and the versions leading to it, written
    only while the stored head is at expected_version (None: no memory may have the path).
    count_delta moves the agent's count of memories, which a store keeps within max_files
    atomically."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    path: str
    head: FileMemory | None
    expected_version: int | None
    versions: list[FileVersion]
    count_delta: Literal[-1, 0, 1]
    # The path's search document when the index lives in the store (embedded shape).
    index: IndexDoc | None = None
    # A preview turn's change: the store keeps it apart from the live heads, and nothing else
    # of the write (head, versions, count) applies.
    preview: PreviewFile | None = None


# How long an expired record stays readable before it is purged, unless the tenant sets another.


class TenantLimits(DeferredModel):
    """A tenant's own file memory limits, set by its admin; None keeps the deployment's."""

    model_config = ConfigDict(frozen=True)

    memory_bytes: int | None = None
    memories_per_agent: int | None = None
    # How long an expired record stays readable before it is purged (ISO 8601 duration).
    expired_retention: str | None = None
