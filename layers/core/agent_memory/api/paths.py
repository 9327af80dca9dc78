"""Agent ids travel as plain path segments; `/-/` separates the id from the agent's resources.

API Gateway HTTP APIs hand the function an already-decoded path, so `%2F` in an id cannot survive
the cloud. Before routing, `normalize` rewrites `/v1/agents/teams/web/releases/-/sessions` to
`/v1/agents/teams%2Fweb%2Freleases/sessions`, which plain `<agent_id>` routes match; routes
unquote the id with `agent_id_from`. The embedded server hands the same decoded path, so both
shapes route through this one function.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote

from ..domain.kernel.ids import validate_agent_id

AGENTS_PREFIX = "/v1/agents/"
SEPARATOR = "/-/"
# Resources whose last parameter is itself a path (`memories/conventions/release.md`).
GREEDY = ("memories/",)


def normalize(path: str) -> str:
    """The routable form of a request path; paths outside /v1/agents/ are returned unchanged."""
    if not path.startswith(AGENTS_PREFIX):
        return path
    rest = path[len(AGENTS_PREFIX) :]
    agent_id, sep, tail = rest.partition(SEPARATOR)
    if not sep and rest.endswith("/-"):
        # `/v1/agents/a/b/-` names no resource of the agent: keep it unroutable.
        return path
    if not agent_id:
        return path
    routed = AGENTS_PREFIX + quote(agent_id, safe="")
    for resource in GREEDY:
        if tail.startswith(resource) and len(tail) > len(resource):
            tail = resource + quote(tail[len(resource) :], safe="")
    return f"{routed}/{tail}" if sep else routed


def normalize_event(event: dict[str, Any]) -> dict[str, Any]:
    """A copy of an API Gateway HTTP API v2 event with its rawPath made routable.

    requestContext.http.path keeps the path as the caller sent it. A named stage prefixes
    rawPath (`/prod/v1/agents/...`); the prefix is kept and the rest normalised.
    """
    path = event.get("rawPath") or "/"
    stage = (event.get("requestContext") or {}).get("stage") or "$default"
    prefix = f"/{stage}" if stage != "$default" and path.startswith(f"/{stage}/") else ""
    routed = prefix + normalize(path[len(prefix) :])
    if routed == path:
        return event
    return {**event, "rawPath": routed}


def agent_id_from(raw: str) -> str:
    """The agent id of a routed path parameter, validated."""
    return validate_agent_id(unquote(raw))


def external(path: str) -> str:
    """The public form of a route template, for the OpenAPI document."""
    prefix = "/v1/agents/{agent_id}"
    if path == prefix:
        return "/v1/agents/{agentId}"
    if path.startswith(prefix + "/"):
        return "/v1/agents/{agentId}/-/" + path[len(prefix) + 1 :]
    return path


def route_template(path: str) -> str:
    """The public form of a resolver route for logs: `/v1/agents/<agent_id>/sessions` is
    `/v1/agents/<agent_id>/-/sessions`, as callers write it (no id, no memory path)."""
    prefix = "/v1/agents/<agent_id>"
    if path.startswith(prefix + "/"):
        return f"{prefix}/-/{path[len(prefix) + 1 :]}"
    return path


def audit_target(path: str) -> tuple[str | None, str]:
    """The agent a request path names and what of it (`memories/notes.md`), for the audit; a
    path outside /v1/agents/ names no agent and is its own target."""
    if not path.startswith(AGENTS_PREFIX):
        return None, path
    agent_id, _, tail = path[len(AGENTS_PREFIX) :].partition(SEPARATOR)
    return agent_id or None, tail
