"""Named manifests: `/v1/agent-manifests/{name}`, saved as versions, followed by agents."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from ...domain.manifests.manifest import Manifest
from ...domain.manifests.named_manifests import NamedManifest, NamedManifestVersion
from ...services import Services
from ..schemas import NamedManifestList, NamedManifestVersionList
from .agents import Cursor, Limit
from .common import ERRORS, NO_CONTENT, caller_of, created, created_responses, no_content

BASE = "/v1/agent-manifests"
Name = Annotated[
    str, Path(description="The manifest's name: 1-128 of a-z 0-9 . _ -.", max_length=128)
]


def agent_manifests_router(services: Services) -> Router:
    router = Router()
    _manifest_routes(router, services)
    _version_routes(router, services)
    return router


def _manifest_routes(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)
    manifests = services.agent_manifests

    @router.get(BASE, summary="List named manifests", responses=ERRORS, tags=["agent-manifests"])
    def list_manifests(limit: Limit = None, cursor: Cursor = None) -> NamedManifestList:
        who = caller()
        who.can_read()
        page = manifests.list(who.tenant, limit, cursor)
        return NamedManifestList(manifests=page.items, next=page.next)

    @router.put(
        BASE + "/<manifest_name>",
        summary="Save a named manifest as its next version",
        description="Creates the name at version 1 (201) or adds a version (200), and moves "
        'every agent that follows it (`PUT /v1/agents/{agentId}` with `{"manifest": name}`) '
        "to the new version. A version that would renumber or drop a label a follower "
        "declares is refused, and nothing is saved.",
        responses=created_responses(NamedManifest, replaced=True),
        tags=["agent-manifests"],
    )
    def put_manifest(
        manifest_name: Name, manifest: Annotated[Manifest, Body()]
    ) -> Response[NamedManifest]:
        who = caller()
        who.can_write_agents()
        head, was_created = manifests.save(who.tenant, manifest_name, manifest)
        return created(head) if was_created else Response(200, "application/json", head)

    @router.get(
        BASE + "/<manifest_name>",
        summary="Get a named manifest's current version",
        responses=ERRORS,
        tags=["agent-manifests"],
    )
    def get_manifest(manifest_name: Name) -> NamedManifest:
        who = caller()
        who.can_read()
        return manifests.get(who.tenant, manifest_name)

    @router.delete(
        BASE + "/<manifest_name>",
        summary="Delete a named manifest and its versions",
        description="Refused (409 manifest_in_use) while an agent follows it.",
        responses=NO_CONTENT,
        tags=["agent-manifests"],
    )
    def delete_manifest(manifest_name: Name) -> Response[None]:
        who = caller()
        who.can_write_agents()
        manifests.delete(who.tenant, manifest_name)
        return no_content()


def _version_routes(router: Router, services: Services) -> None:
    caller = caller_of(router, services.settings)
    manifests = services.agent_manifests

    @router.get(
        BASE + "/<manifest_name>/versions",
        summary="List a named manifest's versions, newest first",
        responses=ERRORS,
        tags=["agent-manifests"],
    )
    def list_versions(
        manifest_name: Name, limit: Limit = None, cursor: Cursor = None
    ) -> NamedManifestVersionList:
        who = caller()
        who.can_read()
        page = manifests.versions(who.tenant, manifest_name, limit, cursor)
        return NamedManifestVersionList(versions=page.items, next=page.next)

    @router.get(
        BASE + "/<manifest_name>/versions/<version>",
        summary="Get one version of a named manifest",
        responses=ERRORS,
        tags=["agent-manifests"],
    )
    def get_version(
        manifest_name: Name, version: Annotated[int, Path(ge=1, le=2**62)]
    ) -> NamedManifestVersion:
        who = caller()
        who.can_read()
        return manifests.version(who.tenant, manifest_name, version)
