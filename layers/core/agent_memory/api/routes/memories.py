"""File memory: `/v1/agents/{agentId}/-/memories/...`, versions, and each session's index."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from pydantic import ConfigDict, Field

from ...domain.files.models import FileMemory, FileVersion
from ...domain.kernel.deferred import DeferredModel
from ...services import Services
from ..answers import (
    MemoryIndex,
    MemoryList,
    MemorySummary,
    MemoryVersionList,
    PutMemoryOut,
    VersionSummary,
)
from ..as_of import AsOf, as_of
from ..own_sessions import OwnSessions
from ..paths import agent_id_from
from .agents import AgentId, Cursor, Limit
from .common import ERRORS, NO_CONTENT, caller_of, no_content
from .sessions import SESSIONS, SessionId

MEMORIES = "/v1/agents/<agent_id>/memories"
MemoryPath = Annotated[
    str,
    Path(
        description="The memory's path after /memories/, as plain "
        "segments (`conventions/release.md`)."
    ),
]
FILE_ERRORS = {
    **ERRORS,
    201: {"description": "Created."},
    413: {"description": "Over memoryBytes: nothing was changed."},
}


AgentOf = Callable[[str, str], str]


class PutMemoryIn(DeferredModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    content: str
    content_sha256: str | None = Field(
        default=None,
        alias="contentSha256",
        description='Write only while the memory has this content; "" only while no memory '
        "has the path.",
    )


def memories_router(services: Services) -> Router:
    router = Router()
    agents = services.agents

    def agent_of(raw: str, tenant: str) -> str:
        agent_id = agent_id_from(raw)
        agents.get(tenant, agent_id)
        return agent_id

    _reading_routes(router, services, agent_of)
    _writing_routes(router, services, agent_of)
    _version_routes(router, services, agent_of)
    _index_routes(router, services)
    return router


def _reading_routes(router: Router, services: Services, agent_of: AgentOf) -> None:
    """Memories by path: list (or rank) them, read one."""
    caller = caller_of(router, services.settings)
    files = services.files

    @router.get(
        MEMORIES,
        summary="List an agent's memories by path",
        description="With `asOf`, the memories as they stood at that instant, from their "
        "versions (a `query` then ranks them by words only).",
        responses=ERRORS,
        tags=["memories"],
    )
    def list_memories(
        agent_id: AgentId,
        path_prefix: Annotated[str | None, Query(alias="pathPrefix")] = None,
        query: Annotated[
            str | None,
            Query(
                max_length=4096,
                description="Rank by path, description and content (words and meaning) "
                "instead of listing by path.",
            ),
        ] = None,
        limit: Limit = None,
        cursor: Cursor = None,
        as_of_time: AsOf = None,
    ) -> MemoryList:
        who = caller()
        who.can_read()
        at = as_of(as_of_time)
        agent = agent_of(agent_id, who.tenant)
        if at is not None:
            then = files.memories_as_of(who.tenant, agent, query, path_prefix, limit, cursor, at)
            return MemoryList(memories=[_summary(m) for m in then.items], next=then.next)
        if query:
            found = files.search(who.tenant, agent, query, path_prefix, limit)
            return MemoryList(memories=[_summary(m) for m in found], next=None)
        page = files.list_memories(who.tenant, agent, path_prefix, limit, cursor)
        return MemoryList(memories=[_summary(m) for m in page.items], next=page.next)

    @router.get(
        MEMORIES + "/<path>",
        summary="Read one memory with its content",
        responses=ERRORS,
        tags=["memories"],
    )
    def get_memory(agent_id: AgentId, path: MemoryPath, as_of_time: AsOf = None) -> FileMemory:
        who = caller()
        who.can_read()
        agent = agent_of(agent_id, who.tenant)
        return files.get(who.tenant, agent, unquote(path), as_of=as_of(as_of_time))


def _writing_routes(router: Router, services: Services, agent_of: AgentOf) -> None:
    """A memory by path: write it whole, delete it (or a folder)."""
    caller = caller_of(router, services.settings)
    files = services.files

    @router.put(
        MEMORIES + "/<path>",
        summary="Create or replace a memory whole",
        description="How an app seeds an agent's memory. With contentSha256 it is a "
        "compare-and-swap: 409 memory_conflict, with the current memory, when it does not hold.",
        responses=FILE_ERRORS,
        tags=["memories"],
    )
    def put_memory(
        agent_id: AgentId, path: MemoryPath, body: Annotated[PutMemoryIn, Body()]
    ) -> Response[PutMemoryOut]:
        who = caller()
        who.can_write_agents()
        memory, was_created, warnings = files.put(
            who.tenant,
            agent_of(agent_id, who.tenant),
            unquote(path),
            body.content,
            body.content_sha256,
            actor=who.audit_name,
        )
        # harness.memory.secrets: warn lists what it found; none leaves `warnings` out.
        answer = PutMemoryOut.model_validate({**dict(memory), "warnings": warnings or None})
        return Response(201 if was_created else 200, "application/json", answer)

    @router.delete(
        MEMORIES + "/<path>",
        summary="Delete a memory, or every memory in a folder (with ?recursive=true)",
        responses=NO_CONTENT,
        tags=["memories"],
    )
    def delete_memory(
        agent_id: AgentId,
        path: MemoryPath,
        recursive: Annotated[
            bool,
            Query(description="Needed to delete a folder: every memory in it goes."),
        ] = False,
    ) -> Response[None]:
        who = caller()
        who.can_write_agents()
        files.delete(
            who.tenant,
            agent_of(agent_id, who.tenant),
            unquote(path),
            actor=who.audit_name,
            recursive=recursive,
        )
        return no_content()


def _version_routes(router: Router, services: Services, agent_of: AgentOf) -> None:
    """Every change to the agent's memories, and one change with its content."""
    caller = caller_of(router, services.settings)
    files = services.files

    @router.get(
        "/v1/agents/<agent_id>/memory-versions",
        summary="Every change, newest first",
        responses=ERRORS,
        tags=["memories"],
    )
    def list_versions(
        agent_id: AgentId,
        path: Annotated[str | None, Query()] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> MemoryVersionList:
        who = caller()
        who.can_read()
        agent = agent_of(agent_id, who.tenant)
        page = files.versions(who.tenant, agent, path, limit, cursor)
        shown = OwnSessions(services.store, who, agent).shown(page.items)
        versions = [VersionSummary.model_validate(dict(v)) for v in shown]
        return MemoryVersionList(versions=versions, next=page.next)

    @router.get(
        "/v1/agents/<agent_id>/memory-versions/<version_id>",
        summary="One version with the content it left (null for a delete)",
        responses=ERRORS,
        tags=["memories"],
    )
    def get_version(
        agent_id: AgentId, version_id: Annotated[str, Path(description="The version's id.")]
    ) -> FileVersion:
        who = caller()
        who.can_read()
        agent = agent_of(agent_id, who.tenant)
        found = files.version(who.tenant, agent, version_id)
        return OwnSessions(services.store, who, agent).shown([found])[0]


def _index_routes(router: Router, services: Services) -> None:
    """The memory index a session opens with, and its refresh."""
    caller = caller_of(router, services.settings)
    files = services.files

    @router.get(
        SESSIONS + "/<session_id>/memory-index",
        summary="The memory index the session opens with",
        description="A line per memory, newest first, with the description from its YAML "
        "frontmatter, within memoryIndexLines and memoryIndexBytes.",
        responses=ERRORS,
        tags=["memories"],
    )
    def memory_index(agent_id: AgentId, session_id: SessionId) -> MemoryIndex:
        who = caller()
        agent = agent_id_from(agent_id)
        services.sessions.reach(who, agent, session_id)
        return MemoryIndex(index=files.index(who.tenant, agent, session_id))

    @router.post(
        SESSIONS + "/<session_id>/compact",
        summary="Compact: refresh the memory index",
        responses=ERRORS,
        tags=["memories"],
    )
    def compact(agent_id: AgentId, session_id: SessionId) -> MemoryIndex:
        who = caller()
        agent = agent_id_from(agent_id)
        services.sessions.reach(who, agent, session_id, write=True)
        return MemoryIndex(index=files.compact(who.tenant, agent, session_id))


def _summary(memory: FileMemory) -> MemorySummary:
    return MemorySummary.model_validate(dict(memory))
