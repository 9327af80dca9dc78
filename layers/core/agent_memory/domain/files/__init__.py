"""File memory: Markdown files under `/memories` that an agent edits with the memory tool.

Pure rules only: path normalisation and the six commands over a read-only view. Storage lives
with the service that applies the returned changes.
"""

from .commands import (
    DEFAULT_MAX_BYTES,
    Change,
    CommandResult,
    FileView,
    MemoryToolError,
    run_command,
)
from .paths import MAX_PATH_CHARS, MEMORY_ROOT, is_under, normalize_folder, normalize_path

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_PATH_CHARS",
    "MEMORY_ROOT",
    "Change",
    "CommandResult",
    "FileView",
    "MemoryToolError",
    "is_under",
    "normalize_folder",
    "normalize_path",
    "run_command",
]
