"""Model and embedding usage: one item an entry, and a running total per purpose and model
(see items.py)."""

from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from ...domain.usage.models import Usage, UsageTotal
from . import keys
from .item_base import Item


class UsageItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    usage_id = UnicodeAttribute()
    turn_id = UnicodeAttribute(null=True)
    purpose = UnicodeAttribute()
    model_id = UnicodeAttribute()
    input_tokens = NumberAttribute()
    output_tokens = NumberAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, usage: Usage) -> UsageItem:
        return cls(
            keys.usage_pk(tenant, agent_id),
            keys.usage_sk(usage.id),
            tenant=tenant,
            agent_id=agent_id,
            usage_id=usage.id,
            turn_id=usage.turn_id,
            purpose=usage.purpose,
            model_id=usage.model_id,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            doc=usage.model_dump_json(),
        )

    def to_usage(self) -> Usage:
        return Usage.model_validate_json(self.doc)


class UsageTotalItem(Item):
    """An agent's calls and tokens of one purpose and model, added to with each entry."""

    purpose = UnicodeAttribute(null=True)
    model_id = UnicodeAttribute(null=True)
    calls = NumberAttribute(null=True)
    input_tokens = NumberAttribute(null=True)
    output_tokens = NumberAttribute(null=True)

    @classmethod
    def at(cls, tenant: str, agent_id: str, purpose: str, model_id: str) -> UsageTotalItem:
        return cls.key(keys.usage_pk(tenant, agent_id), keys.usage_total_sk(purpose, model_id))

    def to_total(self) -> UsageTotal:
        return UsageTotal(
            purpose=self.purpose or "",
            model_id=self.model_id or "",
            calls=int(self.calls or 0),
            input_tokens=int(self.input_tokens or 0),
            output_tokens=int(self.output_tokens or 0),
        )
