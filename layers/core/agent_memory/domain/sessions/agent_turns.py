"""Turns of an agent without a session: what a trigger or a wake runs.

The spec: "An agent without a session has no session scope, so it must set both to
["agent"]", and "an agent without sessions has none [history]". Such a turn runs in the
agent's reserved session (models.AGENT_SESSION), which gives it the gap-free sequence, the
staging, the commit and the idempotency of any turn; what it writes names no session, and
its messages are kept only for its post-turn review, never searchable as history.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..kernel.errors import Conflict, PreconditionFailed
from ..kernel.models import AGENT_SESSION, Agent, Session, utcnow
from ..manifests import Manifest, scope_list

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)

AGENT_ONLY = ["agent"]


def check_sessionless(agent: Agent) -> None:
    """409 unless the agent's current manifest reads and writes agent scope alone: a turn
    without a session has no session scope to read or write."""
    scope = Manifest.model_validate(agent.manifest).harness.memory.scope
    if scope.read == AGENT_ONLY and scope.write == AGENT_ONLY:
        return
    raise Conflict(
        f"agent {agent.id!r} cannot run a turn without a session: its manifest must set "
        'harness.memory.scope.read and scope.write both to ["agent"] (they are read '
        f"{scope_list(scope.read)}, write {scope_list(scope.write)}); or begin the turn in a "
        "session",
        code="session_required",
        read=list(scope.read),
        write=list(scope.write),
    )


def ensure_agent_session(store: Store, agent: Agent) -> None:
    """Make the agent's reserved session on its first sessionless turn (made once; a
    concurrent first begin finds it made)."""
    if store.get_session(agent.tenant, agent.id, AGENT_SESSION) is not None:
        return
    try:
        store.create_session(
            Session(tenant=agent.tenant, agent_id=agent.id, id=AGENT_SESSION, created_at=utcnow())
        )
        logger.info("agent turns session made", extra={"agent_id": agent.id})
    except PreconditionFailed:
        pass  # another begin made it first
