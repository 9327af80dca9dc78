"""File memory: `/v1/agents/{agentId}/-/memories/...`, versions, and each session's index."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from ...services import Services
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


class PutMemoryIn(BaseModel):
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
    caller = caller_of(router, services.settings)
    files = services.files
    agents = services.agents

    def agent_of(raw: str, tenant: str) -> str:
        agent_id = agent_id_from(raw)
        agents.get(tenant, agent_id)
        return agent_id

    @router.get(
        MEMORIES, summary="List an agent's memories by path", responses=ERRORS, tags=["memories"]
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
    ) -> dict[str, Any]:
        who = caller()
        who.can_read()
        agent = agent_of(agent_id, who.tenant)
        if query:
            found = files.search(who.tenant, agent, query, path_prefix, limit)
            return {"memories": [m.summary() for m in found], "next": None}
        page = files.list_memories(who.tenant, agent, path_prefix, limit, cursor)
        return {"memories": [m.summary() for m in page.items], "next": page.next}

    @router.get(
        MEMORIES + "/<path>",
        summary="Read one memory with its content",
        responses=ERRORS,
        tags=["memories"],
    )
    def get_memory(agent_id: AgentId, path: MemoryPath) -> dict[str, Any]:
        who = caller()
        who.can_read()
        found = files.get(who.tenant, agent_of(agent_id, who.tenant), unquote(path))
        return found.model_dump(mode="json", by_alias=True)

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
    ) -> Response[Any]:
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
        dumped = memory.model_dump(mode="json", by_alias=True)
        if warnings:
            dumped["warnings"] = warnings  # harness.memory.secrets: warn
        return Response(201 if was_created else 200, "application/json", dumped)

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
    ) -> Response[Any]:
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
    ) -> dict[str, Any]:
        who = caller()
        who.can_read()
        page = files.versions(who.tenant, agent_of(agent_id, who.tenant), path, limit, cursor)
        versions = [
            v.model_dump(mode="json", by_alias=True, exclude={"content"}) for v in page.items
        ]
        return {"versions": versions, "next": page.next}

    @router.get(
        "/v1/agents/<agent_id>/memory-versions/<version_id>",
        summary="One version with the content it left (null for a delete)",
        responses=ERRORS,
        tags=["memories"],
    )
    def get_version(
        agent_id: AgentId, version_id: Annotated[str, Path(description="The version's id.")]
    ) -> dict[str, Any]:
        who = caller()
        who.can_read()
        found = files.version(who.tenant, agent_of(agent_id, who.tenant), version_id)
        return found.model_dump(mode="json", by_alias=True)

    @router.get(
        SESSIONS + "/<session_id>/memory-index",
        summary="The memory index the session opens with",
        description="A line per memory, newest first, with the description from its YAML "
        "frontmatter, within memoryIndexLines and memoryIndexBytes.",
        responses=ERRORS,
        tags=["memories"],
    )
    def memory_index(agent_id: AgentId, session_id: SessionId) -> dict[str, Any]:
        who = caller()
        agent = agent_id_from(agent_id)
        services.sessions.reach(who, agent, session_id)
        return {"index": files.index(who.tenant, agent, session_id)}

    @router.post(
        SESSIONS + "/<session_id>/compact",
        summary="Compact: refresh the memory index",
        responses=ERRORS,
        tags=["memories"],
    )
    def compact(agent_id: AgentId, session_id: SessionId) -> dict[str, Any]:
        who = caller()
        agent = agent_id_from(agent_id)
        services.sessions.reach(who, agent, session_id, write=True)
        return {"index": files.compact(who.tenant, agent, session_id)}

    return router
