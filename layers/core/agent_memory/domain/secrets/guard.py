"""The secret guard (`harness.memory.secrets`): what a write holding a secret gets.

- `block` (default): a write is refused (`memory.secret_detected`, naming the field, kind and
  line, never the secret); history events, which record what was said and cannot be refused,
  are kept with each secret replaced by `[redacted:<kind>]` before they are stored or indexed.
- `warn`: kept as written; the write's answer lists what was found in `warnings`.
- `off`: not scanned.
Post-turn extraction never promotes a secret under `warn` or `block`: the candidate is dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Literal

from ..kernel.errors import DomainError
from .detector import Finding, redact, scan

logger = logging.getLogger(__name__)

SecretMode = Literal["off", "warn", "block"]
SECRET_DETECTED = "memory.secret_detected"


class SecretDetected(DomainError):
    status = 400
    code = SECRET_DETECTED


def findings_of(fields: Mapping[str, str | None]) -> list[dict[str, Any]]:
    """What each field holds: `{"field", "kind", "line"}`, never the secret itself."""
    return [
        {"field": name, "kind": found.kind, "line": found.line}
        for name, value in fields.items()
        if value
        for found in scan(value)
    ]


def record_fields(
    summary: str, content: str | None, labels: Mapping[str, str]
) -> dict[str, str | None]:
    """What the guard scans of a record (added by the agent or proposed by a review): its
    summary, content and label values."""
    named = {f"labels.{name}": value for name, value in labels.items()}
    return {"summary": summary, "content": content, **named}


def check(
    mode: SecretMode | Callable[[], SecretMode],
    fields: Mapping[str, str | None],
    what: str,
) -> list[dict[str, Any]]:
    """Scan a write's fields as `mode` says: under `block` a secret refuses the write; under
    `warn` the findings come back for the write's answer (and are logged); otherwise none.
    `mode` may be a function, asked only when something was found (a write that holds no
    secret then costs no read of the manifest)."""
    if mode == "off":
        return []
    found = findings_of(fields)
    if not found:
        return []
    if callable(mode):
        mode = mode()
    if mode == "off":
        return []
    first = found[0]
    if mode == "block":
        where = f"{first['field']}, line {first['line']}"
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise SecretDetected(
            f"{what}: {where} holds what looks like a secret ({first['kind']}){more}; memory "
            "never keeps secrets (harness.memory.secrets is block): leave it out or name where "
            "it is kept instead",
            kind=first["kind"],
            field=first["field"],
            line=first["line"],
            findings=found,
        )
    logger.warning(
        "secret kept under warn",
        extra={"write": what, "findings": found},
    )
    return [{"code": SECRET_DETECTED, **f} for f in found]


def redacted(mode: SecretMode, text: str) -> tuple[str, list[Finding]]:
    """`text` as a history event keeps it: under `block` each secret replaced; the findings
    either way (none when `off`)."""
    if mode == "off" or not text:
        return text, []
    found = scan(text)
    if mode == "block" and found:
        return redact(text, found), found
    return text, found


def redact_tree(value: Any) -> Any:
    """A JSON value with every secret in its strings replaced: what a refused call records."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_tree(v) for v in value]
    return value
