"""Transfer: one agent's memory and history as a portable bundle of items (manifest versions,
records and file memories with every version, sessions, turns with their executions and
events, and the embeddings found beside them), read page by page and written back item by item,
ids, versions, timestamps and provenance as they were.

The services load on first use: every cold start of the API imports this package (the store's
port and the routes' constants), few requests export or import, and the item models are about
9 ms of imports (benchmarks/RESULTS.md "Cold start")."""

from __future__ import annotations

from typing import TYPE_CHECKING

# What other capabilities use: they import these names from the package, never its modules.
from ..kernel.lazy import lazy_names
from .bundle import BUNDLE_FORMAT, BUNDLE_VERSION, ITEMS_PER_REQUEST
from .ports import ReviewMarks

if TYPE_CHECKING:
    from ..files import FileService
    from ..history import HistoryService
    from ..search import SearchService
    from ..store import Store
    from .exporting import ExportService
    from .importing import ImportService
    from .service import Transfer

_LAZY = {"ExportService": ".exporting", "ImportService": ".importing", "Transfer": ".service"}

__all__ = [
    "BUNDLE_FORMAT",
    "BUNDLE_VERSION",
    "ITEMS_PER_REQUEST",
    "ExportService",
    "ImportService",
    "ReviewMarks",
    "Transfer",
    "transfer_of",
]


def transfer_of(
    store: Store, search: SearchService, history: HistoryService, files: FileService
) -> Transfer:
    """The capability's services over these (Transfer.of), its modules imported now."""
    from .service import Transfer

    return Transfer.of(store, search, history, files)


__getattr__ = lazy_names(__name__, _LAZY)
