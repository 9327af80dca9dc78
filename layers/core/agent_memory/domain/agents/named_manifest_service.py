"""Named manifests: save them as versions, and keep every agent that follows one on its
current version."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..kernel.errors import Conflict, InvalidRequest, NotFound, PayloadTooLarge
from ..kernel.models import Agent, Page, utcnow
from ..kernel.paging import check_limit, decode_cursor, int_field, page, str_field
from ..kernel.retry import optimistic
from ..manifests import (
    FOLLOWS,
    Manifest,
    NamedManifest,
    NamedManifestVersion,
    check_label_numbers,
    validate_manifest_name,
)
from .service import MAX_MANIFEST_BYTES, AgentService

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)

_SAVE_ATTEMPTS = 5
# Agents read a page at a time while looking for those that follow a name.
_AGENT_PAGE = 200


def followed_name(manifest: dict[str, Any]) -> str | None:
    """The named manifest an agent's saved manifest follows, if any."""
    follows = manifest.get(FOLLOWS)
    return follows.get("name") if isinstance(follows, dict) else None


class NamedManifestService:
    """Named manifests of a tenant, and the agents that follow them."""

    def __init__(self, store: Store, agents: AgentService) -> None:
        self._store = store
        self._agents = agents

    # -- named manifests ----------------------------------------------------------------------

    def save(self, tenant: str, name: str, manifest: Manifest) -> tuple[NamedManifest, bool]:
        """Save `manifest` as the name's next version (version 1 creates it), then move every
        agent that follows the name to it. Returns the head and whether it was created.

        A version that would break a follower (a label renumbered or dropped) is refused before
        anything is saved."""
        validate_manifest_name(name)
        if FOLLOWS in (manifest.model_extra or {}):
            raise InvalidRequest(
                "a named manifest holds a harness; it cannot follow another manifest",
                code="invalid_manifest",
            )
        document = manifest.document()
        size = len(json.dumps(document))
        if size > MAX_MANIFEST_BYTES:
            raise PayloadTooLarge(
                f"a manifest is at most {MAX_MANIFEST_BYTES} bytes as JSON (got {size})",
                code="manifest_too_large",
            )
        followers = list(self.followers(tenant, name))
        for agent in followers:
            check_label_numbers(Manifest.model_validate(agent.manifest), manifest)
        head, created = optimistic(
            partial(self._save_once, tenant, name, document),
            attempts=_SAVE_ATTEMPTS,
            hold=self._store.exclusive,
            exhausted=lambda: Conflict(
                f"manifest {name!r} was saved concurrently too many times; try again",
                code="manifest_busy",
            ),
        )
        for agent in followers:
            self._move(tenant, agent.id, head)
        return head, created

    def _save_once(
        self, tenant: str, name: str, document: dict[str, Any]
    ) -> tuple[NamedManifest, bool]:
        current = self._store.get_named_manifest(tenant, name)
        now = utcnow()
        head = NamedManifest(
            tenant=tenant,
            name=name,
            version=current.version + 1 if current else 1,
            manifest=document,
            created_at=current.created_at if current else now,
            updated_at=now,
        )
        self._store.save_named_manifest(tenant, head, current.version if current else None)
        return head, current is None

    def get(self, tenant: str, name: str) -> NamedManifest:
        found = self._store.get_named_manifest(tenant, validate_manifest_name(name))
        if found is None:
            raise NotFound(f"manifest {name!r} does not exist", code="manifest_not_found")
        return found

    def list(self, tenant: str, limit: int | None, cursor: str | None) -> Page[NamedManifest]:
        after = str_field(decode_cursor(cursor), "after")
        size = check_limit(limit)
        found = self._store.list_named_manifests(tenant, size + 1, after)
        return page(found, size, lambda last: {"after": last.name})

    def versions(
        self, tenant: str, name: str, limit: int | None, cursor: str | None
    ) -> Page[NamedManifestVersion]:
        self.get(tenant, name)
        before = int_field(decode_cursor(cursor), "before")
        size = check_limit(limit)
        found = self._store.list_named_manifest_versions(tenant, name, size + 1, before)
        return page(found, size, lambda last: {"before": last.version})

    def version(self, tenant: str, name: str, version: int) -> NamedManifestVersion:
        self.get(tenant, name)
        found = self._store.get_named_manifest_version(tenant, name, version)
        if found is None:
            raise NotFound(
                f"manifest {name!r} has no version {version}", code="manifest_version_not_found"
            )
        return found

    def delete(self, tenant: str, name: str) -> None:
        """Delete the name and its versions: refused while an agent follows it (the agent
        would be left following nothing)."""
        self.get(tenant, name)
        following = [agent.id for agent in islice(self.followers(tenant, name), 10)]
        if following:
            raise Conflict(
                f"manifest {name!r} is followed by agents ({', '.join(following)}): save "
                "another manifest on them or delete them first",
                code="manifest_in_use",
                agents=following,
            )
        if not self._store.delete_named_manifest(tenant, name):
            raise NotFound(f"manifest {name!r} does not exist", code="manifest_not_found")

    # -- agents that follow one ---------------------------------------------------------------

    def put_agent(self, tenant: str, agent_id: str, body: Manifest) -> tuple[Agent, bool]:
        """Save an agent's manifest: a harness of its own, or `{"manifest": name}` to follow
        that named manifest (its current version now, and each new one as it is saved)."""
        extra = body.model_extra or {}
        if FOLLOWS not in extra:
            return self._agents.put(tenant, agent_id, body)
        name = extra[FOLLOWS]
        if "harness" in body.model_fields_set or set(extra) != {FOLLOWS}:
            raise InvalidRequest(
                'an agent\'s manifest is either {"harness": ...} or {"manifest": "<name>"}, '
                "not both",
                code="invalid_manifest",
            )
        if not isinstance(name, str):
            raise InvalidRequest(
                'manifest is the name of a saved manifest, such as {"manifest": "releases"}',
                code="invalid_manifest",
            )
        return self._agents.put(tenant, agent_id, _following(self.get(tenant, name)))

    def followers(self, tenant: str, name: str) -> Iterator[Agent]:
        """The agents whose current manifest follows `name`, in id order."""
        after: str | None = None
        while True:
            agents = self._store.list_agents(tenant, _AGENT_PAGE, after)
            yield from (a for a in agents if followed_name(a.manifest) == name)
            if len(agents) < _AGENT_PAGE:
                return
            after = agents[-1].id

    def _move(self, tenant: str, agent_id: str, head: NamedManifest) -> None:
        """Save the name's new version on one follower (one deleted meanwhile stays deleted)."""
        try:
            self._agents.put(tenant, agent_id, _following(head), create=False)
        except NotFound:
            return
        logger.info(
            "agent moved to manifest version",
            extra={"agent_id": agent_id, "manifest": head.name, "version": head.version},
        )


def _following(head: NamedManifest) -> Manifest:
    """An agent's manifest that follows `head`: its document, naming the version it came from."""
    return Manifest.model_validate(
        {**head.manifest, FOLLOWS: {"name": head.name, "version": head.version}}
    )
