"""Port of the file-memory capability: files, their versions and the tenant's limits.

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime

from .models import FileMemory, FileVersion, FileWrite, PreviewFile, TenantLimits


class FileStore(ABC):
    """File memories of an agent: heads by path, and every version."""

    @abstractmethod
    def get_file(self, tenant: str, agent_id: str, path: str) -> FileMemory | None: ...

    @abstractmethod
    def list_files(
        self,
        tenant: str,
        agent_id: str,
        prefix: str,
        limit: int,
        after: str | None,
        *,
        with_content: bool = False,
    ) -> list[FileMemory]:
        """Memories whose path starts with `prefix`, in path order after `after`, at most
        `limit`. Without `with_content`, adapters may leave `content` empty (listings never show
        it, and it is up to 100 KiB a memory); with it, each memory's content is read in the
        same request (a fork copies them all without a read per memory)."""

    @abstractmethod
    def file_versions(
        self, tenant: str, agent_id: str, path: str | None, limit: int, before: str | None
    ) -> list[FileVersion]:
        """Versions newest first (one path's, or every path's), ids below `before`."""

    @abstractmethod
    def get_file_version(
        self, tenant: str, agent_id: str, version_id: str
    ) -> FileVersion | None: ...

    @abstractmethod
    def count_files(self, tenant: str, agent_id: str) -> int: ...

    @abstractmethod
    def write_files(
        self, tenant: str, agent_id: str, writes: Sequence[FileWrite], max_files: int
    ) -> None:
        """Apply writes outside any turn (an app's change): all or none. PreconditionFailed when
        an expected version does not hold; LimitExceeded when the count would pass max_files."""

    @abstractmethod
    def save_session_index(
        self, tenant: str, agent_id: str, session_id: str, text: str, built_at: datetime
    ) -> None:
        """Keep the memory index a session opened with (until a compaction refreshes it)."""

    @abstractmethod
    def session_index(self, tenant: str, agent_id: str, session_id: str) -> str | None: ...

    @abstractmethod
    def preview_files(self, tenant: str, agent_id: str) -> list[PreviewFile]:
        """Every change preview turns made to the agent's memories (kept by FileWrite.preview
        in a commit), one per path, the latest."""

    @abstractmethod
    def tenant_limits(self, tenant: str) -> TenantLimits | None:
        """The limits the tenant's admin set, None when never set."""

    @abstractmethod
    def save_tenant_limits(self, tenant: str, limits: TenantLimits) -> None:
        """Keep the tenant's limits whole (a None field: the deployment's default)."""
