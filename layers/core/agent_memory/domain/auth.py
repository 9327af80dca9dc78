"""Who is calling: the tenant every key is prefixed with, and the scopes the caller was granted."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import Forbidden

AGENTS_READ = "agents:read"
AGENTS_WRITE = "agents:write"
SESSIONS_OWN = "sessions:own"
ALL_SCOPES = frozenset({AGENTS_READ, AGENTS_WRITE, SESSIONS_OWN})


@dataclass(frozen=True)
class Principal:
    tenant: str
    subject: str
    scopes: frozenset[str] = field(default_factory=frozenset)

    def require_any(self, *scopes: str) -> None:
        """Pass when the caller holds at least one of `scopes`, else 403."""
        if not self.scopes.intersection(scopes):
            raise Forbidden(
                f"this call needs one of the scopes {', '.join(sorted(scopes))}",
                code="insufficient_scope",
            )

    def can_read(self) -> None:
        self.require_any(AGENTS_READ, AGENTS_WRITE, SESSIONS_OWN)

    def can_write_agents(self) -> None:
        self.require_any(AGENTS_WRITE)

    def can_run_sessions(self) -> None:
        self.require_any(SESSIONS_OWN, AGENTS_WRITE)
