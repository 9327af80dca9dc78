"""A turn in progress: who calls its tools, what they stage, and the budget they stage within."""

# What other capabilities use: they import these names from the package, never its modules.
from .budget import (
    MAX_ITEMS_PER_TURN,
    MAX_STAGED_BYTES,
    MAX_WRITES_PER_TURN,
    check_turn_budget,
    staging_refused,
    stored_bytes,
)
from .context import (
    Caller,
    ManifestCache,
    ToolRefused,
    TurnContext,
    parse_caller,
    replayed_effects,
    root_of,
    turn_closed,
)
from .effects import (
    Effect,
    FileChange,
    FileChangeEffect,
    FileChangeItem,
    FileStamp,
    RecordAdd,
    RecordAddEffect,
    RecordDelete,
    RecordDeleteEffect,
    RecordEffect,
    effect_from_json,
)
from .io import ToolIn, ToolOut

__all__ = [
    "MAX_ITEMS_PER_TURN",
    "MAX_STAGED_BYTES",
    "MAX_WRITES_PER_TURN",
    "Caller",
    "Effect",
    "FileChange",
    "FileChangeEffect",
    "FileChangeItem",
    "FileStamp",
    "ManifestCache",
    "RecordAdd",
    "RecordAddEffect",
    "RecordDelete",
    "RecordDeleteEffect",
    "RecordEffect",
    "ToolIn",
    "ToolOut",
    "ToolRefused",
    "TurnContext",
    "check_turn_budget",
    "effect_from_json",
    "parse_caller",
    "replayed_effects",
    "root_of",
    "staging_refused",
    "stored_bytes",
    "turn_closed",
]
