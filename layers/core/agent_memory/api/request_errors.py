"""The 400 a request gets when its body or parameters do not parse: one sentence a person can
act on, and each problem by field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from ..domain.kernel.errors import field_problems, problems_text


def invalid_request(exc: RequestValidationError) -> dict[str, Any]:
    """The error body for a request the resolver could not validate."""
    errors = exc.errors()
    broken = next((e for e in errors if e.get("type") == "json_invalid"), None)
    if broken is not None:
        message = not_json(broken, getattr(exc, "body", None))
        problems = [{"field": "body", "message": message}]
        return {"error": {"code": "invalid_request", "message": message, "problems": problems}}
    return {
        "error": {
            "code": "invalid_request",
            "message": f"invalid request: {problems_text(errors)}",
            "problems": field_problems(errors),
        }
    }


def not_json(error: Mapping[str, Any], body: Any) -> str:
    """`the body is not valid JSON: Expecting ',' delimiter at line 1, column 27 (char 26)`."""
    loc = error.get("loc") or ()
    position = loc[-1] if loc and isinstance(loc[-1], int) else None
    reason = str((error.get("ctx") or {}).get("error") or "it does not parse")
    if position is None:
        return f"the body is not valid JSON: {reason}"
    where = f"char {position}"
    if isinstance(body, str | bytes):
        text = body.decode(errors="replace") if isinstance(body, bytes) else body
        before = text[:position]
        line = before.count("\n") + 1
        column = position - (before.rfind("\n") + 1) + 1
        where = f"line {line}, column {column} ({where})"
    return f"the body is not valid JSON: {reason} at {where}"
