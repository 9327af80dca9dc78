"""The URL paths the SDK sends, checked before a request leaves.

Agent ids and memory paths travel as plain segments (`/v1/agents/teams/web/-/memories/a/b.md`),
so a `..` segment in either would be resolved by the HTTP stack into another route: a memory
write would land on the agent route and save a manifest. Such a path is refused here, with
`InvalidPath`, and nothing is sent; `transport.target` percent-encodes what must be."""

from __future__ import annotations

from typing import Any

from .errors import InvalidPath

_DOTS = (".", "..")


def agent_path(agent_id: str) -> str:
    """`/v1/agents/<id>`; an id with an empty, `.` or `..` segment is refused."""
    if not agent_id or any(s in ("", *_DOTS) for s in agent_id.split("/")):
        raise InvalidPath(
            agent_id,
            "an agent id is segments such as teams/web/releases, none of them empty, '.' or '..'",
            what="agent id",
        )
    return f"/v1/agents/{agent_id}"


def memory_path(path: str) -> str:
    """The memory path after /memories/, as the URL's plain segments. Read as the service reads
    a path: `memories/notes.md` is relative, so `/memories/memories/notes.md`, and another
    absolute path stays absolute, for the service to refuse. A folder may end in `/`."""
    relative = path.strip().removeprefix("/memories/")
    if not relative:
        raise InvalidPath(path, "name a memory such as notes/release.md")
    # An absolute path elsewhere keeps its leading `/`; a folder its trailing one.
    inner = relative.removeprefix("/").removesuffix("/").split("/")
    if any(s in _DOTS for s in inner):
        raise InvalidPath(
            path,
            "'.' and '..' segments are not allowed: name the memory by its path from /memories",
        )
    if "" in inner:
        raise InvalidPath(path, "empty segments (//) are not allowed")
    return relative


def no_dot_segments(path: str) -> None:
    """Refuse a request path with a `.` or `..` segment (an id given where it should not be):
    the HTTP stack would resolve it into another route."""
    if any(s in _DOTS for s in path.split("/")):
        raise InvalidPath(path, "a '.' or '..' segment would reach another route", what="URL path")


def without_schema(manifest: Any) -> Any:
    """A manifest document without `$schema` (an editor's hint, not a setting), as saved."""
    if isinstance(manifest, dict) and "$schema" in manifest:
        return {k: v for k, v in manifest.items() if k != "$schema"}
    return manifest
