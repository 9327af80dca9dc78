"""The SDK's one exception type: every call raises `ClientError` when it has no answer to return."""

from __future__ import annotations

from typing import Any


class ClientError(Exception):
    """What every call raises when it gets no answer it can return: `status` (the HTTP status,
    None when no response came), `code` (the error body's code, or `connection_failed`) and
    `message`. Catch this one; the two subclasses only say which of the two cases it was."""

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
