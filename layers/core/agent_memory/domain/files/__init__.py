"""File memory: Markdown files under `/memories` that an agent edits with the memory tool.

Pure rules only: path normalisation and the six commands over a read-only view. Storage lives
with the service that applies the returned changes.
"""

# What other capabilities use: they import these names from the package, never its modules.
from .as_of import memories_at
from .commands import (
    COMMAND_NAMES,
    DEFAULT_MAX_BYTES,
    Change,
    CommandResult,
    FileView,
    MemoryToolError,
    run_command,
)
from .models import FileMemory, FileVersion, FileWrite, TenantLimits
from .paths import MAX_PATH_CHARS, MEMORY_ROOT, is_under, normalize_folder, normalize_path
from .plan import file_head
from .service import FileService

__all__ = [
    "COMMAND_NAMES",
    "DEFAULT_MAX_BYTES",
    "MAX_PATH_CHARS",
    "MEMORY_ROOT",
    "Change",
    "CommandResult",
    "FileMemory",
    "FileService",
    "FileVersion",
    "FileView",
    "FileWrite",
    "MemoryToolError",
    "TenantLimits",
    "file_head",
    "is_under",
    "memories_at",
    "normalize_folder",
    "normalize_path",
    "run_command",
]
