"""The session's index of file memory: the list of memories a session opens with, kept per
session so it stays the same all session long until compacted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.models import utcnow
from .limits import FileLimits
from .paths import MEMORY_ROOT
from .reads import all_files

if TYPE_CHECKING:
    from ..store import Store


def session_index(
    store: Store, limits: FileLimits, tenant: str, agent_id: str, session_id: str
) -> str:
    """The index the session opened with; built on first read, refreshed by compact()."""
    kept = store.session_index(tenant, agent_id, session_id)
    return kept if kept is not None else compact(store, limits, tenant, agent_id, session_id)


def compact(store: Store, limits: FileLimits, tenant: str, agent_id: str, session_id: str) -> str:
    text = build_index(store, limits, tenant, agent_id)
    store.save_session_index(tenant, agent_id, session_id, text, utcnow())
    return text


def build_index(store: Store, limits: FileLimits, tenant: str, agent_id: str) -> str:
    """The newest memories first, one line each, within the index's lines and bytes."""
    files = all_files(store, tenant, agent_id, MEMORY_ROOT + "/")
    files.sort(key=lambda f: (f.updated_at, f.path), reverse=True)
    lines: list[str] = []
    used = 0
    for f in files:
        line = f"{f.path} — {f.description}" if f.description else f.path
        cost = len(line.encode()) + 1
        if len(lines) >= limits.index_lines or used + cost > limits.index_bytes:
            break
        lines.append(line)
        used += cost
    # When some are left out, the line saying so counts within both limits too.
    listed = len(lines)
    while listed < len(files):
        note = (
            f"({len(files) - listed} older memories are not listed: "
            "view their folders for the rest)"
        )
        fits = listed < limits.index_lines
        if not listed or (fits and used + len(note.encode()) <= limits.index_bytes):
            return "\n".join([*lines[:listed], note])
        listed -= 1
        used -= len(lines[listed].encode()) + 1
    return "\n".join(lines)
