"""Who is calling: the tenant every key is prefixed with, the scopes and caller roles the
credential grants, and the subject sessions belong to. The same rules hold in both shapes: the
embedded server's tokens and the cloud's JWTs both become a Principal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import Forbidden, NotFound
from .models import Session

AGENTS_READ = "agents:read"
AGENTS_WRITE = "agents:write"
SESSIONS_OWN = "sessions:own"
ADMIN = "admin"
ALL_SCOPES = frozenset({AGENTS_READ, AGENTS_WRITE, SESSIONS_OWN, ADMIN})
# The roles a tool caller states (`caller.role`); a credential may be limited to some of them.
ROLES = ("agent", "helper", "programmatic", "agent_as_tool")
ALL_ROLES = frozenset(ROLES)


@dataclass(frozen=True)
class Principal:
    tenant: str
    subject: str
    scopes: frozenset[str] = field(default_factory=frozenset)
    # The caller roles this credential may state; a credential that names none may state any.
    roles: frozenset[str] = ALL_ROLES
    # Who the audit and version trail names: the local token's id, or the JWT's subject.
    actor: str = ""

    @property
    def audit_name(self) -> str:
        return f"api:{self.actor or self.subject or 'unknown'}"

    @property
    def reads_every_session(self) -> bool:
        return bool(self.scopes.intersection((AGENTS_READ, AGENTS_WRITE)))

    def require_any(self, *scopes: str) -> None:
        """Pass when the caller holds at least one of `scopes`, else 403."""
        if not self.scopes.intersection(scopes):
            raise Forbidden(
                f"this call needs one of the scopes {', '.join(sorted(scopes))}",
                code="insufficient_scope",
            )

    def can_read(self) -> None:
        """Agent-level reads: agents, records, memories, usage, limits."""
        self.require_any(AGENTS_READ, AGENTS_WRITE, SESSIONS_OWN)

    def can_read_all_sessions(self) -> None:
        """Reads across every session of an agent (listing sessions, searching history):
        not for a token that may only reach the sessions its subject started."""
        self.require_any(AGENTS_READ, AGENTS_WRITE)

    def can_write_agents(self) -> None:
        self.require_any(AGENTS_WRITE)

    def can_run_sessions(self) -> None:
        self.require_any(SESSIONS_OWN, AGENTS_WRITE)

    def can_name_session(self) -> None:
        """Starting a session under an id the caller chooses. An id names a session agent-wide,
        so a token that reaches only the sessions its subject started could learn from a 409
        that another subject's session holds an id which a read answers 404 for. Such a token
        starts its sessions under ids the service chooses (403 `session_id_forbidden`, whether
        the id is taken or not)."""
        if not self.reads_every_session:
            raise Forbidden(
                "a sessions:own token starts sessions under ids the service chooses: leave "
                "out `id` (naming a session takes agents:read or agents:write)",
                code="session_id_forbidden",
            )

    def can_decide_proposals(self) -> None:
        """Approving or rejecting a review's pending writes is an app's (`agents:write`), never
        the agent's: a credential bound to the agent role (one that names its roles, `agent`
        among them) is the one an agent runs its turns with, and an agent does not approve its
        own proposals (403 `proposal_forbidden`)."""
        self.can_write_agents()
        if self.roles != ALL_ROLES and "agent" in self.roles:
            raise Forbidden(
                "this credential may act as the agent; a review's proposals are approved or "
                "rejected with an app's credential (agents:write, not bound to the agent role)",
                code="proposal_forbidden",
            )

    def can_administer(self) -> None:
        self.require_any(ADMIN)

    def reach(self, session: Session, *, write: bool) -> Session:
        """The session, when this caller may read it (`write=False`) or run turns in it.
        `agents:write` reaches every session of the tenant, `agents:read` reads every one;
        `sessions:own` reaches only the sessions its subject started. Another subject's session
        is answered as if it did not exist, so a token learns nothing about sessions it cannot
        reach."""
        if write:
            self.can_run_sessions()
            if AGENTS_WRITE in self.scopes:
                return session
        else:
            self.can_read()
            if self.reads_every_session:
                return session
        if session.owner is not None and session.owner == self.subject:
            return session
        raise NotFound(f"session {session.id!r} does not exist", code="session_not_found")

    def may_act_as(self, role: str) -> None:
        """403 `memory.forbidden` unless this credential may state caller role `role`: a token
        given to a helper can never write as the session's agent by saying it is one."""
        if role not in self.roles:
            raise Forbidden(
                f"this credential may act as {', '.join(sorted(self.roles)) or 'no role'}, "
                f"not as {role}",
                code="memory.forbidden",
            )

    def may_state_caller(self, body: Mapping[str, Any], default: str | None = None) -> None:
        """The role a tool call's body states (`caller.role`, or `default` when it states none)
        is one this credential holds. A malformed caller is left to the tool's own validation."""
        raw = body.get("caller") or None  # an empty caller is no caller, as the tools read it
        role = raw.get("role") if isinstance(raw, Mapping) else default if raw is None else None
        if isinstance(role, str) and role in ALL_ROLES:
            self.may_act_as(role)
