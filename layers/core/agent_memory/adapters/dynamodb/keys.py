"""The single-table key layout. Every key starts with the tenant, so nothing crosses tenants.

    agent head        pk T#{tenant}#AGENTS                   sk A#{agentId}
    manifest version  pk T#{tenant}#A#{agentId}              sk MV#{version:010d}
    session           pk T#{tenant}#A#{agentId}              sk S#{sessionId}
    turn              pk T#{tenant}#A#{agentId}#S#{session}  sk TURN#{turnId}

An agent owns its whole `T#{tenant}#A#{agentId}` partition and, through each session item, the
session's own partition; deleting an agent walks exactly those.
"""

from __future__ import annotations

AGENT = "A#"
VERSION = "MV#"
SESSION = "S#"
TURN = "TURN#"
VERSION_DIGITS = 10


def _part(value: str) -> str:
    # Ids never contain `#` (agent, session and turn ids are validated by the services), and a
    # tenant that did could reach into another tenant's partitions, so refuse it outright.
    if "#" in value:
        raise ValueError(f"{value!r} cannot be part of a key: it contains '#'")
    return value


def agents_pk(tenant: str) -> str:
    return f"T#{_part(tenant)}#AGENTS"


def agent_sk(agent_id: str) -> str:
    return AGENT + _part(agent_id)


def agent_pk(tenant: str, agent_id: str) -> str:
    return f"T#{_part(tenant)}#{AGENT}{_part(agent_id)}"


def version_suffix(version: int) -> str:
    return f"{version:0{VERSION_DIGITS}d}"


def version_sk(version: int) -> str:
    return VERSION + version_suffix(version)


def session_sk(session_id: str) -> str:
    return SESSION + _part(session_id)


def session_pk(tenant: str, agent_id: str, session_id: str) -> str:
    return f"{agent_pk(tenant, agent_id)}#{SESSION}{_part(session_id)}"


def turn_sk(turn_id: str) -> str:
    return TURN + _part(turn_id)
