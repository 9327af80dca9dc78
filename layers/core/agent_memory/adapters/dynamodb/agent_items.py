"""An agent's head and its manifest versions, as items of the single table (see items.py)."""

from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, JSONAttribute, NumberAttribute, UnicodeAttribute

from ...domain.kernel.models import Agent, ManifestVersion
from . import keys
from .item_base import IsoDateTimeAttribute, Item


class AgentItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    manifest_version = NumberAttribute()
    manifest = JSONAttribute()
    forked_from = UnicodeAttribute(null=True)
    created_at = IsoDateTimeAttribute()
    updated_at = IsoDateTimeAttribute()
    # Set (true) from the moment a delete starts; a head carrying it is no longer an agent.
    deleting = BooleanAttribute(null=True)

    @classmethod
    def of(cls, agent: Agent) -> AgentItem:
        return cls(
            keys.agents_pk(agent.tenant),
            keys.agent_sk(agent.id),
            tenant=agent.tenant,
            agent_id=agent.id,
            manifest_version=agent.manifest_version,
            manifest=agent.manifest,
            forked_from=agent.forked_from,
            created_at=agent.created_at,
            updated_at=agent.updated_at,
        )

    def to_agent(self) -> Agent:
        return Agent(
            tenant=self.tenant,
            id=self.agent_id,
            manifest_version=self.manifest_version,
            manifest=self.manifest,
            forked_from=self.forked_from,
            created_at=self.created_at,
            updated_at=self.updated_at,
        )


class VersionItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    version = NumberAttribute()
    manifest = JSONAttribute()
    created_at = IsoDateTimeAttribute()

    @classmethod
    def of(cls, tenant: str, version: ManifestVersion) -> VersionItem:
        return cls(
            keys.agent_pk(tenant, version.agent_id),
            keys.version_sk(version.version),
            tenant=tenant,
            agent_id=version.agent_id,
            version=version.version,
            manifest=version.manifest,
            created_at=version.created_at,
        )

    def to_version(self) -> ManifestVersion:
        return ManifestVersion(
            agent_id=self.agent_id,
            version=self.version,
            manifest=self.manifest,
            created_at=self.created_at,
        )
