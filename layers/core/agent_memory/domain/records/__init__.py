"""Records: structured memories, their versions and provenance, the port that keeps them, and
the services that stage them in a turn, rank, pin, fork and administer them."""

# What other capabilities use: they import these names from the package, never its modules.
from .expiry import DEFAULT_EXPIRED_RETENTION
from .fork import copy_agent_records
from .io import AddMemoryIn, IdIn, MemoriesOut, RecordsOut, SearchMemoryIn, SourcesOut
from .models import (
    LABEL_VALUE_MAX_CHARS,
    Execution,
    ProposedWrite,
    Provenance,
    Record,
    RecordOperation,
    RecordQuery,
    RecordStatus,
    RecordVersion,
    RecordWrite,
)
from .plan import RecordRestate, cited
from .ranking import rerank_text
from .service import RecordService, pin_tokens, rank_lexical, tool_input_error

__all__ = [
    "DEFAULT_EXPIRED_RETENTION",
    "LABEL_VALUE_MAX_CHARS",
    "AddMemoryIn",
    "Execution",
    "IdIn",
    "MemoriesOut",
    "ProposedWrite",
    "Provenance",
    "Record",
    "RecordOperation",
    "RecordQuery",
    "RecordRestate",
    "RecordService",
    "RecordStatus",
    "RecordVersion",
    "RecordWrite",
    "RecordsOut",
    "rerank_text",
    "SearchMemoryIn",
    "SourcesOut",
    "cited",
    "copy_agent_records",
    "pin_tokens",
    "rank_lexical",
    "tool_input_error",
]
