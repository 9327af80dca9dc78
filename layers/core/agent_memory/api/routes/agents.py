"""Agents: `/v1/agents`, `/v1/agents/{agentId}` and the agent's manifest versions and fork."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query

from ...domain.agents.as_of import agent_as_of
from ...domain.kernel.models import Agent, ManifestVersion
from ...domain.manifests.manifest import ManifestDocument, check_saved_keys
from ...services import Services
from ..as_of import AsOf, as_of
from ..paths import agent_id_from
from ..schemas import AgentList, ForkIn, IndexStatus, ManifestVersionList
from .common import ERRORS, NO_CONTENT, caller_of, created, created_responses, no_content

Limit = Annotated[int | None, Query(ge=1, le=200, description="Page size, 1-200 (default 50).")]
Cursor = Annotated[str | None, Query(description="The `next` of the previous page.")]
AgentId = Annotated[str, Path(description="Path-like agent id, as plain segments.")]


def agents_router(services: Services) -> Router:
    router = Router()
    _agent_routes(router, services)
    _version_routes(router, services)
    _derived_routes(router, services)
    return router


def _agent_routes(router: Router, services: Services) -> None:
    """The agent itself: list, save its manifest, read, delete."""
    caller = caller_of(router, services.settings)
    agents = services.agents

    @router.get("/v1/agents", summary="List agents", responses=ERRORS, tags=["agents"])
    def list_agents(limit: Limit = None, cursor: Cursor = None) -> AgentList:
        who = caller()
        who.can_read()
        page = agents.list(who.tenant, limit, cursor)
        return AgentList(agents=page.items, next=page.next)

    @router.put(
        "/v1/agents/<agent_id>",
        summary="Save an agent's manifest as its next version",
        description="Creates the agent at version 1 (201) or adds a version (200). A label once "
        "declared keeps its number in every later version. The body is a manifest "
        '(`{"harness": ...}`) or `{"manifest": "<name>"}`: the agent then follows that named '
        "manifest, moving to each version saved after (its versions name the one they came "
        "from). Any other top-level key is refused (400, nothing saved).",
        responses=created_responses(Agent, replaced=True),
        tags=["agents"],
    )
    def put_agent(
        agent_id: AgentId, manifest: Annotated[ManifestDocument, Body()]
    ) -> Response[Agent]:
        who = caller()
        who.can_write_agents()
        check_saved_keys(manifest)
        agent, was_created = services.agent_manifests.put_agent(
            who.tenant, agent_id_from(agent_id), manifest
        )
        return created(agent) if was_created else Response(200, "application/json", agent)

    @router.get(
        "/v1/agents/<agent_id>",
        summary="Get an agent",
        description="With `asOf`, the agent as it stood at that instant: the manifest version "
        "then (404 agent_not_found when the agent was made after it).",
        responses=ERRORS,
        tags=["agents"],
    )
    def get_agent(agent_id: AgentId, as_of_time: AsOf = None) -> Agent:
        who = caller()
        who.can_read()
        at = as_of(as_of_time)
        agent = agents.get(who.tenant, agent_id_from(agent_id))
        return agent if at is None else agent_as_of(services.store, agent, at)

    @router.delete(
        "/v1/agents/<agent_id>",
        summary="Delete an agent and everything it owns",
        responses=NO_CONTENT,
        tags=["agents"],
    )
    def delete_agent(agent_id: AgentId) -> Response[None]:
        who = caller()
        who.can_write_agents()
        agents.delete(who.tenant, agent_id_from(agent_id))
        return no_content()


def _version_routes(router: Router, services: Services) -> None:
    """The agent's saved manifest versions."""
    caller = caller_of(router, services.settings)
    agents = services.agents

    @router.get(
        "/v1/agents/<agent_id>/manifest-versions",
        summary="List manifest versions, newest first",
        responses=ERRORS,
        tags=["agents"],
    )
    def list_versions(
        agent_id: AgentId, limit: Limit = None, cursor: Cursor = None
    ) -> ManifestVersionList:
        who = caller()
        who.can_read()
        page = agents.manifest_versions(who.tenant, agent_id_from(agent_id), limit, cursor)
        return ManifestVersionList(versions=page.items, next=page.next)

    @router.get(
        "/v1/agents/<agent_id>/manifest-versions/<version>",
        summary="Get one manifest version",
        responses=ERRORS,
        tags=["agents"],
    )
    def get_version(
        agent_id: AgentId, version: Annotated[int, Path(ge=1, le=2**62)]
    ) -> ManifestVersion:
        who = caller()
        who.can_read()
        return agents.manifest_version(who.tenant, agent_id_from(agent_id), version)


def _derived_routes(router: Router, services: Services) -> None:
    """What is made from the agent: its search index's progress, and a copy (fork)."""
    caller = caller_of(router, services.settings)
    agents = services.agents

    @router.get(
        "/v1/agents/<agent_id>/index",
        summary="How far the agent's search index has caught up",
        description="`pendingVectors`: what is findable by words but not yet by meaning.",
        responses=ERRORS,
        tags=["agents"],
    )
    def index_status(agent_id: AgentId) -> IndexStatus:
        who = caller()
        who.can_read()
        agent = agents.get(who.tenant, agent_id_from(agent_id))
        search = services.records.search
        return IndexStatus(
            pending_vectors=search.pending_vectors(who.tenant, agent.id),
            embedding_model=search.embedder.model_id if search.embedder else None,
        )

    @router.post(
        "/v1/agents/<agent_id>/fork",
        summary="Copy an agent under a new id",
        responses=created_responses(Agent),
        tags=["agents"],
    )
    def fork_agent(agent_id: AgentId, body: Annotated[ForkIn, Body()]) -> Response[Agent]:
        who = caller()
        who.can_write_agents()
        return created(agents.fork(who.tenant, agent_id_from(agent_id), body.id))
