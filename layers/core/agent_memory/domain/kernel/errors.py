"""Domain errors. Each carries a stable `code` and the HTTP status the API renders it with."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# The codes several tools share answer with one status, whoever raises them.
CODE_STATUS = {
    "memory.forbidden": 403,
    "memory.not_found": 404,
    "memory.invalid_argument": 400,
    "memory.secret_detected": 400,
}


class DomainError(Exception):
    """Base of every error the service reports to a caller."""

    status: int = 400
    code: str = "invalid_request"

    def __init__(self, message: str, *, code: str | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
            # One code, one status, whichever tool or service raises it.
            self.status = CODE_STATUS.get(code, self.status)
        self.details = details

    def to_body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, **self.details}}


class InvalidRequest(DomainError):
    status = 400
    code = "invalid_request"


class Unauthorized(DomainError):
    status = 401
    code = "unauthorized"


class Forbidden(DomainError):
    status = 403
    code = "forbidden"


class NotFound(DomainError):
    status = 404
    code = "not_found"


class Conflict(DomainError):
    status = 409
    code = "conflict"


class PayloadTooLarge(DomainError):
    status = 413
    code = "payload_too_large"


class StorageUnavailable(DomainError):
    """The backing store refused or failed; the caller may retry."""

    status = 503
    code = "storage_unavailable"


class StorageFull(StorageUnavailable):
    """The disk (or the database's size cap) is full: the write was refused whole, reads go on."""

    status = 507
    code = "storage_full"


class StorageDamaged(StorageUnavailable):
    """The database file is damaged: what it answers cannot be trusted until it is restored."""

    status = 503
    code = "storage_damaged"


def field_problems(errors: Iterable[Mapping[str, Any]]) -> list[dict[str, str]]:
    """pydantic's validation errors as `{"field": "a.b", "message": ...}`, one a bad field."""
    return [
        {
            "field": ".".join(str(p) for p in err.get("loc", ())) or "input",
            "message": str(err.get("msg", err.get("type", "invalid"))),
        }
        for err in errors
    ]


def problems_text(errors: Iterable[Mapping[str, Any]]) -> str:
    """The same problems on one line: `a.b: message; c: message`."""
    return "; ".join(f"{p['field']}: {p['message']}" for p in field_problems(errors))


class PreconditionFailed(Conflict):
    """A conditional write lost a race; the service decides whether to retry or report it."""

    code = "precondition_failed"


class LimitExceeded(Conflict):
    code = "limit_exceeded"
