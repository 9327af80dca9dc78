"""The transfer capability's two services, wired together from what they read and write."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..files import FileService
from ..history import HistoryService
from ..search import SearchService
from .exporting import ExportService
from .importing import ImportService

if TYPE_CHECKING:
    from ..store import Store


@dataclass(frozen=True)
class Transfer:
    """An agent read out as bundle items (`exports`), and written back from them (`imports`)."""

    exports: ExportService
    imports: ImportService

    @classmethod
    def of(
        cls, store: Store, search: SearchService, history: HistoryService, files: FileService
    ) -> Transfer:
        def max_files(tenant: str) -> int:
            return files.limits_for(tenant).memories_per_agent

        return cls(ExportService(store, search), ImportService(store, search, history, max_files))
