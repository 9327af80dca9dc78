"""API tokens of the embedded server: the first one is made on first start, tenant `default`."""

from __future__ import annotations

import hmac
import json
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from ..domain.auth import ALL_SCOPES

DEFAULT_TENANT = "default"


@dataclass(frozen=True)
class TokenGrant:
    tenant: str
    scopes: frozenset[str]


class TokenBook:
    """Tokens and the tenant each acts for. `<data-dir>/token` holds the first token (0600);
    `<data-dir>/tokens.json` any further ones, as `{token: {"tenant": ...}}` (0600), read again
    whenever it changes: `agent-memory token create` (or a token taken out of the file) counts
    at once, without a restart."""

    def __init__(self, grants: dict[str, TokenGrant], extra: Path | None = None) -> None:
        self._grants = grants
        self._extra = extra
        self._extra_grants: dict[str, TokenGrant] = {}
        self._extra_seen: tuple[int, int] | None = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, data_dir: Path, explicit: str | None) -> tuple[TokenBook, str | None]:
        """The book, and the token made on this start (None when one already existed)."""
        grants: dict[str, TokenGrant] = {}
        made: str | None = None
        if explicit:
            grants[explicit] = TokenGrant(DEFAULT_TENANT, ALL_SCOPES)
        else:
            path = data_dir / "token"
            if path.exists():
                token = path.read_text().strip()
            else:
                token = made = secrets.token_urlsafe(32)
                _write_private(path, token + "\n")
            grants[token] = TokenGrant(DEFAULT_TENANT, ALL_SCOPES)
        book = cls(grants, data_dir / "tokens.json")
        book._read_extra()
        return book, made

    def grant_for(self, token: str) -> TokenGrant | None:
        self._read_extra()
        for known, grant in [*self._grants.items(), *self._extra_grants.items()]:
            if hmac.compare_digest(known.encode(), token.encode()):
                return grant
        return None

    def _read_extra(self) -> None:
        """tokens.json again if it changed since it was last read (its mtime and size)."""
        if self._extra is None:
            return
        try:
            stat = self._extra.stat()
            seen: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            seen = None
        if seen == self._extra_seen:
            return
        with self._lock:
            grants: dict[str, TokenGrant] = {}
            if seen is not None:
                try:
                    entries = json.loads(self._extra.read_text())
                    grants = {
                        t: TokenGrant(str(e["tenant"]), ALL_SCOPES) for t, e in entries.items()
                    }
                except (OSError, ValueError, KeyError, TypeError, AttributeError):
                    return  # caught mid-write, or broken by hand: keep what was read before
            self._extra_grants, self._extra_seen = grants, seen


def add_token(data_dir: Path, tenant: str) -> str:
    """Make a token for `tenant`, kept in `<data-dir>/tokens.json`."""
    path = data_dir / "tokens.json"
    entries = json.loads(path.read_text()) if path.exists() else {}
    token = secrets.token_urlsafe(32)
    entries[token] = {"tenant": tenant}
    _write_private(path, json.dumps(entries, indent=2) + "\n")
    return token


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.chmod(path, 0o600)
