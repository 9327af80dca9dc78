"""Agents: save manifests as versions, read, list, fork and delete them."""

from __future__ import annotations

import json
import logging
import time
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field, ValidationError

from ..files import FileService, TenantLimits
from ..kernel.auth import Principal
from ..kernel.deferred import DeferredModel
from ..kernel.errors import (
    Conflict,
    InvalidRequest,
    NotFound,
    PayloadTooLarge,
    PreconditionFailed,
    field_problems,
    problems_text,
)
from ..kernel.ids import validate_agent_id
from ..kernel.models import Agent, ManifestVersion, Page, utcnow
from ..kernel.paging import check_limit, decode_cursor, int_field, str_field
from ..kernel.paging import page as _page
from ..kernel.retry import optimistic
from ..manifests import Manifest, check_label_numbers
from ..records import copy_agent_records
from ..search import SearchService
from ..turns import ManifestCache

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)

_SAVE_ATTEMPTS = 5


class TenantReset(DeferredModel):
    """What a reset did: agents it deleted, and whether none is left (else: ask again)."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    deleted_agents: int = Field(serialization_alias="deletedAgents")
    done: bool
    # A whole tenant's reset also takes its limits back to the deployment's, once no agent is
    # left; an agents-only reset keeps them.
    limits_reset: bool = Field(default=False, serialization_alias="limitsReset")


# The agent's head and each manifest version hold the manifest in one DynamoDB item (400 KB
# at most, keys and other fields beside it).
MAX_MANIFEST_BYTES = 200 * 1024


def parse_manifest(document: Any) -> Manifest:
    """Validate a manifest document; every problem is one 400 listing each bad field."""
    if not isinstance(document, dict):
        raise InvalidRequest("the manifest must be a JSON object", code="invalid_manifest")
    try:
        return Manifest.model_validate(document)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        problems, summary = field_problems(errors), problems_text(errors)
        raise InvalidRequest(
            f"invalid manifest: {summary}", code="invalid_manifest", problems=problems
        ) from exc


class AgentService:
    """Agents and their versioned manifests."""

    def __init__(
        self,
        store: Store,
        files: FileService,
        manifests: ManifestCache | None = None,
        search: SearchService | None = None,
    ) -> None:
        self._store = store
        self._files = files
        self._manifests = manifests
        self._search = search

    def put(
        self, tenant: str, agent_id: str, manifest: Manifest, create: bool = True
    ) -> tuple[Agent, bool]:
        """Save a manifest as the agent's next version, creating the agent at version 1
        (unless `create` is False: then a missing agent is a 404).

        Returns the agent and whether it was created. Concurrent saves each get their own version.
        """
        validate_agent_id(agent_id)
        size = len(json.dumps(manifest.document()))
        if size > MAX_MANIFEST_BYTES:
            raise PayloadTooLarge(
                f"a manifest is at most {MAX_MANIFEST_BYTES} bytes as JSON (got {size})",
                code="manifest_too_large",
            )
        return optimistic(
            partial(self._save_once, tenant, agent_id, manifest, create),
            attempts=_SAVE_ATTEMPTS,
            hold=self._store.exclusive,
            exhausted=lambda: Conflict(
                "the agent was changed concurrently too many times; try again", code="agent_busy"
            ),
        )

    def _save_once(
        self, tenant: str, agent_id: str, manifest: Manifest, create: bool
    ) -> tuple[Agent, bool]:
        """One try at saving the next version; a save that lost a race to another raises
        PreconditionFailed (read again and numbered after the winner)."""
        current = self._store.get_agent(tenant, agent_id)
        now = utcnow()
        if current is None and not create:
            raise NotFound(f"agent {agent_id!r} does not exist", code="agent_not_found")
        if current is None:
            agent = Agent(
                tenant=tenant,
                id=agent_id,
                manifest_version=1,
                manifest=manifest.document(),
                created_at=now,
                updated_at=now,
            )
            version = ManifestVersion(
                agent_id=agent_id, version=1, manifest=agent.manifest, created_at=now
            )
            self._store.create_agent(agent, version)
            if self._manifests is not None:
                self._manifests.forget(tenant, agent_id)  # a namesake's versions
            return agent, True
        check_label_numbers(Manifest.model_validate(current.manifest), manifest)
        number = current.manifest_version + 1
        agent = current.model_copy(
            update={
                "manifest_version": number,
                "manifest": manifest.document(),
                "updated_at": now,
            }
        )
        version = ManifestVersion(
            agent_id=agent_id, version=number, manifest=agent.manifest, created_at=now
        )
        self._store.save_manifest(agent, version, expected_version=current.manifest_version)
        return agent, False

    def get(self, tenant: str, agent_id: str) -> Agent:
        validate_agent_id(agent_id)
        agent = self._store.get_agent(tenant, agent_id)
        if agent is None:
            raise NotFound(f"agent {agent_id!r} does not exist", code="agent_not_found")
        return agent

    def list(self, tenant: str, limit: int | None, cursor: str | None) -> Page[Agent]:
        after = str_field(decode_cursor(cursor), "after")
        size = check_limit(limit)
        agents = self._store.list_agents(tenant, size + 1, after)
        return _page(agents, size, lambda last: {"after": last.id})

    def manifest_versions(
        self, tenant: str, agent_id: str, limit: int | None, cursor: str | None
    ) -> Page[ManifestVersion]:
        self.get(tenant, agent_id)
        position = decode_cursor(cursor)
        before = int_field(position, "before")
        size = check_limit(limit)
        versions = self._store.list_manifest_versions(tenant, agent_id, size + 1, before)
        return _page(versions, size, lambda last: {"before": last.version})

    def manifest_version(self, tenant: str, agent_id: str, version: int) -> ManifestVersion:
        self.get(tenant, agent_id)
        found = self._store.get_manifest_version(tenant, agent_id, version)
        if found is None:
            raise NotFound(
                f"agent {agent_id!r} has no manifest version {version}",
                code="manifest_version_not_found",
            )
        return found

    def delete(self, tenant: str, agent_id: str) -> None:
        validate_agent_id(agent_id)
        deleted = self._store.delete_agent(tenant, agent_id)
        if self._manifests is not None:
            self._manifests.forget(tenant, agent_id)
        if not deleted:
            raise NotFound(f"agent {agent_id!r} does not exist", code="agent_not_found")

    def reset_tenant(
        self, who: Principal, confirm: str, seconds: float, *, agents_only: bool = False
    ) -> TenantReset:
        """Delete every agent of the caller's tenant with everything it owns (records,
        memories, history, versions, usage) and, unless `agents_only`, take the tenant's
        limits back to the deployment's. The audit trail stays either way (it records the
        reset), and so do the credentials (they are not the tenant's data). `confirm` must be
        the tenant's name. Works for about `seconds`, then says whether it is done: a reset cut
        short (a timeout, a crash) is finished by asking again, agents half deleted included."""
        who.can_administer()
        if confirm != who.tenant:
            raise InvalidRequest(
                "confirm must be the tenant's name: the reset deletes every agent of it",
                code="confirmation_mismatch",
            )
        deadline = time.monotonic() + seconds
        deleted = 0
        while ids := self._store.agent_ids(who.tenant, 25):
            for agent_id in ids:
                # False for one already gone (deleted by another call meanwhile): fine.
                deleted += self._store.delete_agent(who.tenant, agent_id)
                if self._manifests is not None:
                    self._manifests.forget(who.tenant, agent_id)
                if time.monotonic() >= deadline:
                    done = not self._store.agent_ids(who.tenant, 1)
                    return TenantReset(deleted_agents=deleted, done=done)
        limits_reset = not agents_only and self._reset_limits(who.tenant)
        logger.info(
            "tenant reset",
            extra={
                "tenant": who.tenant,
                "deleted_agents": deleted,
                "agents_only": agents_only,
                "limits_reset": limits_reset,
            },
        )
        return TenantReset(deleted_agents=deleted, done=True, limits_reset=limits_reset)

    def _reset_limits(self, tenant: str) -> bool:
        """The tenant's own limits back to the deployment's; whether it had any."""
        own = self._store.tenant_limits(tenant)
        if own is None or own == TenantLimits():
            return False
        self._store.save_tenant_limits(tenant, TenantLimits())
        return True

    def fork(self, tenant: str, agent_id: str, new_id: str) -> Agent:
        """Copy an agent under a new id: its current manifest becomes version 1 of the copy,
        and its file memories and active agent-scope records are copied at version 1."""
        source = self.get(tenant, agent_id)
        validate_agent_id(new_id)
        now = utcnow()
        agent = Agent(
            tenant=tenant,
            id=new_id,
            manifest_version=1,
            manifest=source.manifest,
            created_at=now,
            updated_at=now,
            forked_from=agent_id,
        )
        version = ManifestVersion(
            agent_id=new_id, version=1, manifest=source.manifest, created_at=now
        )
        try:
            self._store.create_agent(agent, version)
        except PreconditionFailed as exc:
            raise Conflict(f"agent {new_id!r} already exists", code="agent_exists") from exc
        if self._manifests is not None:
            self._manifests.forget(tenant, new_id)  # a namesake's versions
        try:
            self._files.copy_all(tenant, agent_id, new_id, actor=f"fork:{agent_id}")
            copy_agent_records(
                self._store, self._search, tenant, agent_id, new_id, actor=f"fork:{agent_id}"
            )
        except Exception:
            # Copied in batches: a copy that fails part way is taken back whole, so the fork
            # can be asked again (rather than a half copy answering 409 agent_exists).
            self._store.delete_agent(tenant, new_id)
            raise
        return agent
