"""File memory items: heads, versions, the agent's memory count, a preview turn's changes and
the tenant's limits (see items.py)."""

from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from ...domain.files.models import FileMemory, FileVersion, PreviewFile
from . import keys
from .item_base import IsoDateTimeAttribute, Item


class FileItem(Item):
    """A file memory's head, in typed attributes so a listing can leave the content out."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    path = UnicodeAttribute()
    # Always stored; absent only from listings, which project it away.
    content = UnicodeAttribute(null=True)
    bytes = NumberAttribute()
    content_sha256 = UnicodeAttribute()
    description = UnicodeAttribute(null=True)
    version = NumberAttribute()
    updated_at = IsoDateTimeAttribute()
    updated_by = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, head: FileMemory) -> FileItem:
        # Keyed by the tenant and agent it is written under, as SqliteStore keys its rows.
        return cls(
            keys.files_pk(tenant, agent_id),
            keys.file_sk(head.path),
            tenant=tenant,
            agent_id=agent_id,
            path=head.path,
            content=head.content,
            bytes=head.bytes,
            content_sha256=head.content_sha256,
            description=head.description,
            version=head.version,
            updated_at=head.updated_at,
            updated_by=head.updated_by,
        )

    def to_file(self) -> FileMemory:
        return FileMemory(
            tenant=self.tenant,
            agent_id=self.agent_id,
            path=self.path,
            content=self.content or "",
            bytes=self.bytes,
            content_sha256=self.content_sha256,
            description=self.description,
            version=self.version,
            updated_at=self.updated_at,
            updated_by=self.updated_by,
        )


# What a listing reads of a head: everything but the content, up to 100 KiB a memory.
FILE_SUMMARY = (
    "pk",
    "sk",
    "tenant",
    "agent_id",
    "path",
    "bytes",
    "content_sha256",
    "description",
    "version",
    "updated_at",
    "updated_by",
)


class FileVersionItem(Item):
    """One file version: `doc` is the version without its content, which is kept as it is
    (JSON would escape every newline and quote of it, and items are limited to 400 KB)."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    version_id = UnicodeAttribute()
    # A path's history is its versions with this path or, for a rename, this from_path.
    path = UnicodeAttribute()
    from_path = UnicodeAttribute(null=True)
    content = UnicodeAttribute(null=True)
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, version: FileVersion) -> FileVersionItem:
        return cls(
            keys.file_versions_pk(tenant, agent_id),
            keys.file_version_sk(version.id),
            tenant=tenant,
            agent_id=agent_id,
            version_id=version.id,
            path=version.path,
            from_path=version.from_path,
            content=version.content,
            doc=version.model_dump_json(exclude={"content"}),
        )

    def to_version(self) -> FileVersion:
        return FileVersion.model_validate_json(self.doc).model_copy(
            update={"content": self.content}
        )


class FileCountItem(Item):
    """How many file memories the agent has, moved in the same transaction as the heads."""

    memories = NumberAttribute(null=True)

    @classmethod
    def at(cls, tenant: str, agent_id: str) -> FileCountItem:
        return cls.key(keys.agent_pk(tenant, agent_id), keys.FILE_COUNT)


class PreviewFileItem(Item):
    """A preview turn's change to one path (domain PreviewFile as JSON)."""

    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, change: PreviewFile) -> PreviewFileItem:
        return cls(
            keys.preview_files_pk(tenant, agent_id),
            keys.file_sk(change.path),
            doc=change.model_dump_json(),
        )

    def to_preview(self) -> PreviewFile:
        return PreviewFile.model_validate_json(self.doc)


class TenantLimitsItem(Item):
    """A tenant's own file memory limits (a missing attribute: the deployment's default)."""

    memory_bytes = NumberAttribute(null=True)
    memories_per_agent = NumberAttribute(null=True)
    expired_retention = UnicodeAttribute(null=True)

    @classmethod
    def at(cls, tenant: str) -> TenantLimitsItem:
        return cls.key(keys.tenant_limits_pk(tenant), keys.TENANT_LIMITS)
