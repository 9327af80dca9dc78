"""API tokens of the embedded server, kept as hashes with the scopes and roles each grants.

`<data-dir>/tokens.json` (0600) holds one entry per token id: the sha256 of the token, its
tenant, subject, scopes, caller roles and expiry; never the token. A token is 256 random bits
(`secrets.token_urlsafe(32)`), so a fast hash is enough: nobody can search 2**256 candidates,
where bcrypt or argon2 exist to slow the search of a guessable password. A slow hash would
instead cost every request tens of milliseconds of CPU and hand anyone who sends bad tokens a
cheap way to exhaust the server. The first token (made on first start, an admin of tenant
`default`) is also written alone to `<data-dir>/token` (0600), the owner's copy to read it from.

Every change (`token create`, `token revoke`, a first start) reads, changes and replaces the file
while holding an exclusive lock on `<data-dir>/tokens.json.lock`, so changes made at once by
separate processes all land; the file is replaced whole (written beside, fsynced, renamed), so a
reader never sees half of it.

Files written by earlier versions (`{token: {"tenant": ...}}`) are migrated when read: each
token becomes a hashed entry with the scopes it had (all but `admin`, unless it listed some).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..domain.kernel.auth import AGENTS_READ, AGENTS_WRITE, ALL_ROLES, ALL_SCOPES, SESSIONS_OWN

logger = logging.getLogger(__name__)

DEFAULT_TENANT = "default"
FIRST_TOKEN_ID = "first"
EXPLICIT_TOKEN_ID = "explicit"
# What a token of the first format could do: every scope there was before `admin`.
LEGACY_SCOPES = frozenset({AGENTS_READ, AGENTS_WRITE, SESSIONS_OWN})
_EXPIRY = re.compile(r"^([1-9][0-9]{0,5})([mhd])$")
_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_SUBJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$")


class TokenError(ValueError):
    """A token asked for that cannot be made, or one to revoke that does not exist."""


@dataclass(frozen=True)
class TokenGrant:
    tenant: str
    scopes: frozenset[str]
    id: str = ""
    subject: str = ""
    roles: frozenset[str] = ALL_ROLES
    expires: datetime | None = None

    @property
    def who(self) -> str:
        """The subject sessions belong to: the one it was given, else the token's id."""
        return self.subject or self.id

    def expired(self, now: datetime) -> bool:
        return self.expires is not None and now >= self.expires

    def entry(self, digest: str) -> dict[str, Any]:
        return {
            "sha256": digest,
            "tenant": self.tenant,
            "subject": self.subject or None,
            "scopes": sorted(self.scopes),
            "roles": sorted(self.roles),
            "expires": self.expires.isoformat() if self.expires else None,
        }


def digest_of(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


_RACY_NS = 2_000_000_000
_FRESH = (-1, -1, -1)  # a stamp no file has: the next call reads the file again


@dataclass
class _Read:
    grants: dict[str, TokenGrant] = field(default_factory=dict)  # sha256 -> grant
    seen: tuple[int, int, int] | None = None


class TokenBook:
    """Tokens and what each grants. tokens.json is read again whenever it changes (its mtime and
    size): `agent-memory token create` or `token revoke` counts at once, without a restart."""

    def __init__(self, grants: dict[str, TokenGrant], path: Path | None = None) -> None:
        """`grants` by sha256 of the token (held in memory only: an explicit --token)."""
        self._fixed = grants
        self._path = path
        self._read = _Read()
        self._lock = threading.Lock()

    @classmethod
    def of_tokens(cls, tokens: dict[str, TokenGrant]) -> TokenBook:
        """A book of the given tokens alone (tests, and a token given on the command line)."""
        return cls({digest_of(t): g for t, g in tokens.items()})

    @classmethod
    def load(cls, data_dir: Path, explicit: str | None) -> tuple[TokenBook, str | None]:
        """The book, and the token made on this start (None when one already existed)."""
        path = data_dir / "tokens.json"
        migrate(data_dir)
        made: str | None = None
        if explicit:
            admin = TokenGrant(DEFAULT_TENANT, ALL_SCOPES, id=EXPLICIT_TOKEN_ID)
            book = cls({digest_of(explicit): admin}, path)
        else:
            book = cls({}, path)
            made = _ensure_first_token(data_dir)
        book._reread()
        return book, made

    def grant_for(self, token: str) -> TokenGrant | None:
        if not token:
            return None
        digest = digest_of(token)
        grant = self._fixed.get(digest) or self._reread().get(digest)
        if grant is None or grant.expired(datetime.now(UTC)):
            return None
        return grant

    def _reread(self) -> dict[str, TokenGrant]:
        if self._path is None:
            return {}
        try:
            stat = self._path.stat()
            seen: tuple[int, int, int] | None = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            seen = None
        read = self._read
        if seen == read.seen:
            return read.grants
        if seen is not None and time.time_ns() - stat.st_mtime_ns < _RACY_NS:
            # Two changes within one tick of the file system's clock can leave the same stamp
            # (and, a revoke and a create, the same size): a file this fresh is read again on
            # every call until it has aged past any such tick.
            seen = _FRESH
        with self._lock:
            grants: dict[str, TokenGrant] = {}
            if seen is not None:
                try:
                    grants = {e["sha256"]: g for g, e in _grants(_load(self._path))}
                except (OSError, ValueError, KeyError, TypeError, AttributeError):
                    # Caught mid-write, or broken by hand: keep what was read before.
                    logger.warning("tokens file unreadable", extra={"path": str(self._path)})
                    return read.grants
            self._read = _Read(grants, seen)
            return grants


def parse_expiry(text: str | None, now: datetime) -> datetime | None:
    """`30d`, `12h`, `45m`, or None for a token that never expires."""
    if text is None:
        return None
    m = _EXPIRY.match(text.strip())
    if not m:
        raise TokenError(f"--expires is a count and a unit (m, h or d), such as 30d: not {text!r}")
    unit = {"m": "minutes", "h": "hours", "d": "days"}[m[2]]
    return now + timedelta(**{unit: int(m[1])})


def add_token(
    data_dir: Path,
    tenant: str,
    *,
    scopes: frozenset[str] = LEGACY_SCOPES,
    subject: str | None = None,
    roles: frozenset[str] = ALL_ROLES,
    expires: datetime | None = None,
) -> tuple[str, TokenGrant]:
    """Make a token for `tenant`, kept (as its hash) in `<data-dir>/tokens.json`."""
    if not _TENANT.match(tenant):
        raise TokenError("--tenant is 1-64 of A-Z a-z 0-9 . _ -, starting with a letter or digit")
    if subject is not None and not _SUBJECT.match(subject):
        raise TokenError("--subject is 1-128 of A-Z a-z 0-9 . _ @ : -")
    if unknown := scopes - ALL_SCOPES:
        raise TokenError(f"unknown scopes {sorted(unknown)}; known: {sorted(ALL_SCOPES)}")
    if not scopes:
        raise TokenError("a token needs at least one scope")
    if unknown := roles - ALL_ROLES:
        raise TokenError(f"unknown roles {sorted(unknown)}; known: {sorted(ALL_ROLES)}")
    if not roles:
        raise TokenError("a token needs at least one role")
    token = new_token()
    grant = TokenGrant(tenant, scopes, _new_id(), subject or "", roles, expires)
    _update(data_dir, lambda entries: entries.__setitem__(grant.id, grant.entry(digest_of(token))))
    return token, grant


def list_tokens(data_dir: Path) -> list[TokenGrant]:
    path = data_dir / "tokens.json"
    if not path.exists():
        return []
    return [grant for grant, _ in _grants(_load(path))]


def revoke_token(data_dir: Path, token_id: str) -> None:
    def drop(entries: dict[str, Any]) -> None:
        if entries.pop(token_id, None) is None:
            raise TokenError(f"no token {token_id!r}")

    _update(data_dir, drop)
    if token_id == FIRST_TOKEN_ID:
        # Its plain copy would only mislead: the token no longer opens anything.
        (data_dir / "token").unlink(missing_ok=True)


def _ensure_first_token(data_dir: Path) -> str | None:
    """On first start, make the admin token of tenant `default`. A data directory of an
    earlier version has its `token` file but no entry for it: the entry is added (once: a
    revoked first token stays revoked)."""
    path = data_dir / "token"
    made: list[str] = []

    def keep(entries: dict[str, Any]) -> bool:
        if entries.get("firstTokenKept"):
            return False  # nothing to write
        if path.exists():
            token = path.read_text().strip()
        else:
            token = new_token()
            _write_private(path, token + "\n")
            made.append(token)
        first = TokenGrant(DEFAULT_TENANT, ALL_SCOPES, FIRST_TOKEN_ID)
        entries[FIRST_TOKEN_ID] = first.entry(digest_of(token))
        entries["firstTokenKept"] = True
        return True

    _update(data_dir, keep)
    return made[0] if made else None


def new_token() -> str:
    """A new secret (256 bits, URL-safe) that never starts with `-`: a command line would read
    `--token -x...` as two options, and a user pastes tokens there."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


def _new_id() -> str:
    return "tok_" + secrets.token_hex(6)


def _load(path: Path) -> dict[str, Any]:
    """The file's entries by token id, migrating the first format (keyed by the token)."""
    raw = json.loads(path.read_text())
    if not isinstance(raw, dict):
        raise ValueError("tokens.json is not an object")
    if raw.get("version") == 2:
        return dict(raw["tokens"], firstTokenKept=bool(raw.get("firstTokenKept")))
    entries: dict[str, Any] = {}
    for token, old in raw.items():
        scopes = frozenset(old.get("scopes") or LEGACY_SCOPES) & ALL_SCOPES
        grant = TokenGrant(str(old["tenant"]), scopes or LEGACY_SCOPES, _new_id())
        entries[grant.id] = grant.entry(digest_of(token))
    return entries


def _grants(entries: dict[str, Any]) -> list[tuple[TokenGrant, dict[str, Any]]]:
    out = []
    for token_id, e in entries.items():
        if token_id == "firstTokenKept":
            continue
        expires = datetime.fromisoformat(e["expires"]) if e.get("expires") else None
        grant = TokenGrant(
            str(e["tenant"]),
            frozenset(e["scopes"]) & ALL_SCOPES,
            token_id,
            e.get("subject") or "",
            frozenset(e.get("roles") or ALL_ROLES) & ALL_ROLES,
            expires,
        )
        out.append((grant, e))
    return out


# One process's threads queue here; processes queue on the lock file (flock is per open file,
# so two threads of one process would not exclude each other through it alone).
_file_lock = threading.Lock()


@contextmanager
def _locked(data_dir: Path) -> Iterator[None]:
    """Hold the tokens file's lock: one change at a time, across every process."""
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    with _file_lock:
        fd = os.open(data_dir / "tokens.json.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the file lets the lock go


def _update(data_dir: Path, change: Callable[[dict[str, Any]], bool | None]) -> None:
    """Read tokens.json (migrated), apply `change` to its entries, write it back whole (unless
    `change` returns False: nothing changed): a migrated file is rewritten without any plain
    token. All under the lock, so a change made by another process at the same moment is read
    here, never overwritten."""
    path = data_dir / "tokens.json"
    with _locked(data_dir):
        entries = _load(path) if path.exists() else {}
        if change(entries) is False:
            return
        kept = bool(entries.pop("firstTokenKept", False))
        doc = {"version": 2, "firstTokenKept": kept, "tokens": entries}
        _write_private(path, json.dumps(doc, indent=2) + "\n")


def migrate(data_dir: Path) -> None:
    """Rewrite a tokens.json of the first format as hashes (a no-op on the current one)."""
    path = data_dir / "tokens.json"
    if path.exists() and json.loads(path.read_text()).get("version") != 2:
        _update(data_dir, lambda entries: None)


def _write_private(path: Path, text: str) -> None:
    """Write whole or not at all (a reader never sees half a file), readable by its owner only."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)
    # The rename itself is durable only once the directory is: a crash now keeps the change.
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
