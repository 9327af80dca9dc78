"""Where a call acts: an agent, one of its sessions, or one of that session's turns.

Each is a small frozen value in place of the two, three or four strings that used to travel
together through every call (`tenant, agent_id, session_id, turn_id`): a turn's reference is a
session's reference is an agent's reference, so a service that needs the session takes the turn's
reference as it is, and its parts are named, never placed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AgentRef:
    """An agent of a tenant."""

    tenant: str
    agent_id: str


@dataclass(frozen=True, slots=True)
class SessionRef(AgentRef):
    """A session of an agent."""

    session_id: str

    @property
    def agent(self) -> AgentRef:
        return AgentRef(self.tenant, self.agent_id)

    def turn(self, turn_id: str) -> TurnRef:
        return TurnRef(self.tenant, self.agent_id, self.session_id, turn_id)


@dataclass(frozen=True, slots=True)
class TurnRef(SessionRef):
    """A turn of a session."""

    turn_id: str

    @property
    def session(self) -> SessionRef:
        return SessionRef(self.tenant, self.agent_id, self.session_id)
