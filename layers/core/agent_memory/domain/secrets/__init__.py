"""The secret guard: a detector for keys, tokens and passwords in text, and what a write that
holds one gets (harness.memory.secrets: off | warn | block)."""

# What other capabilities use: they import these names from the package, never its modules.
from .detector import Finding, redact, scan
from .guard import (
    SECRET_DETECTED,
    SecretDetected,
    SecretMode,
    check,
    findings_of,
    record_fields,
    redact_tree,
    redacted,
)

__all__ = [
    "SECRET_DETECTED",
    "Finding",
    "SecretDetected",
    "SecretMode",
    "check",
    "findings_of",
    "record_fields",
    "redact",
    "redact_tree",
    "redacted",
    "scan",
]
