"""How the CLI says that something failed: one line on stderr and a non-zero exit, never a
traceback, whatever the server answered (or did not)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from ..client import ApiError, ClientError, ConnectionFailed
from ..domain.kernel.errors import DomainError


def say(text: str) -> None:
    print(f"agent-memory: {text}", file=sys.stderr)


def unreachable(url: str, reason: str) -> str:
    """No server answered at `url`: where the CLI looked and how to point it elsewhere."""
    reason = re.sub(r"^\[Errno -?\d+\] ", "", reason).lower()
    return (
        f"could not reach the server at {url} ({reason}). Is it running? Start one with "
        "`agent-memory serve` (or `make serve`), or point at yours with --url or AGENT_MEMORY_URL"
    )


def message(exc: ClientError, url: str | None) -> str:
    if isinstance(exc, ConnectionFailed):
        return unreachable(url or exc.url, exc.reason)
    if isinstance(exc, ApiError):
        return f"{exc.status} {exc.code}: {exc.message}"
    return exc.message


def settings_problems(exc: ValidationError) -> list[str]:
    """pydantic-settings' errors as plain sentences: a check of ours raises ValueError, which
    pydantic shows as `Value error, ...`; the sentence is what the check said."""
    found = []
    for err in exc.errors(include_url=False):
        cause = (err.get("ctx") or {}).get("error")
        if err.get("type") == "value_error" and cause is not None:
            found.append(str(cause))
        else:
            where = ".".join(str(p) for p in err.get("loc", ()))
            found.append(f"{where}: {err['msg']}" if where else str(err["msg"]))
    return found


def run_reporting(run: Callable[[Any], int], args: Any) -> int:
    """Run a command; each failure the CLI can meet is one line and exit status 1."""
    try:
        return int(run(args))
    except ClientError as exc:
        say(message(exc, getattr(args, "url", None)))
    except DomainError as exc:
        # A data directory's database refused (damaged, foreign, full): what and the way out.
        say(exc.message)
    except json.JSONDecodeError as exc:
        say(f"the input is not JSON: {exc}")
    except OSError as exc:
        say(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip())
    return 1
