"""Transfer: one agent's memory and history as a portable bundle of items (manifest versions,
records and file memories with every version, sessions, turns with their executions and
events, and the embeddings found beside them), read page by page and written back item by item,
ids, versions, timestamps and provenance as they were."""

# What other capabilities use: they import these names from the package, never its modules.
from .exporting import ExportService
from .importing import ImportService
from .items import BUNDLE_FORMAT, BUNDLE_VERSION
from .ports import ReviewMarks
from .service import Transfer

__all__ = [
    "BUNDLE_FORMAT",
    "BUNDLE_VERSION",
    "ExportService",
    "ImportService",
    "ReviewMarks",
    "Transfer",
]
