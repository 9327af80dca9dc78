"""The SDK's one exception type: every call raises `ClientError` when it has no answer to return;
its subclasses say which case it was."""

from __future__ import annotations

from typing import Any


class ClientError(Exception):
    """What every call raises when it gets no answer it can return: `status` (the HTTP status,
    None when no response came), `code` (the error body's code, or `connection_failed`) and
    `message`. Catch this one; the subclasses only say which case it was: no answer
    (`ConnectionFailed`), an error answer (`ApiError`), a path refused before sending
    (`InvalidPath`), an answer the SDK cannot read (`UnexpectedResponse`)."""

    def __init__(self, status: int | None, code: str, message: str) -> None:
        self.status = status
        self.code = code
        self.message = message
        super().__init__(f"{status} {code}: {message}" if status is not None else message)


class ConnectionFailed(ClientError):
    """No answer from the server (refused, unknown host, timed out, cut off): `url`, `reason`."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        super().__init__(None, "connection_failed", f"cannot reach {url}: {reason}")


class ApiError(ClientError):
    """An error response: `status`, and the body's `code` and `message` (the whole body in
    `body`, such as a `memory_conflict`'s `current` memory)."""

    def __init__(self, status: int, body: Any) -> None:
        error = body.get("error", {}) if isinstance(body, dict) else {}
        self.body = body
        super().__init__(status, str(error.get("code", "unknown")), str(error.get("message", body)))

    @property
    def details(self) -> dict[str, Any]:
        """The error's fields beyond code and message (`current`, `path`, `alreadyKept`, ...)."""
        error = self.body.get("error", {}) if isinstance(self.body, dict) else {}
        return {k: v for k, v in error.items() if k not in ("code", "message")}


class InvalidPath(ClientError):
    """A path or id refused before any request was sent (`..` segments and the like): `path`,
    `reason`."""

    def __init__(self, path: str, reason: str, what: str = "memory path") -> None:
        self.path = path
        self.reason = reason
        super().__init__(None, "invalid_path", f"invalid {what} {path!r}: {reason}")


class UnexpectedResponse(ClientError):
    """A success status whose body is not what the call answers (another route's answer, a
    proxy's page, a newer server's shape): `status`, and what did not fit in `message`."""

    def __init__(self, status: int | None, where: str, problem: str) -> None:
        self.where = where
        super().__init__(
            status, "unexpected_response", f"{where} answered what the SDK cannot read: {problem}"
        )
