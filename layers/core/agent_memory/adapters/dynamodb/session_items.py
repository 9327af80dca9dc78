"""A session's items: its head, the tool executions and effects its turns staged, and the
memory index it opened with (see items.py)."""

from __future__ import annotations

from datetime import datetime

from pynamodb.attributes import JSONAttribute, NumberAttribute, UnicodeAttribute

from ...domain.kernel.models import Session
from ...domain.records.models import Execution
from ...domain.turns.effects import Effect, effect_from_json
from . import keys
from .item_base import IsoDateTimeAttribute, Item


class SessionItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    last_sequence = NumberAttribute()
    reviewed_through = NumberAttribute(null=True)
    metadata = JSONAttribute()
    created_at = IsoDateTimeAttribute()
    owner = UnicodeAttribute(null=True)

    @classmethod
    def of(cls, session: Session) -> SessionItem:
        return cls(
            keys.agent_pk(session.tenant, session.agent_id),
            keys.session_sk(session.id),
            tenant=session.tenant,
            agent_id=session.agent_id,
            session_id=session.id,
            last_sequence=session.last_sequence,
            reviewed_through=session.reviewed_through,
            metadata=session.metadata,
            created_at=session.created_at,
            owner=session.owner,
        )

    def to_session(self) -> Session:
        return Session(
            tenant=self.tenant,
            agent_id=self.agent_id,
            id=self.session_id,
            last_sequence=self.last_sequence,
            reviewed_through=self.reviewed_through or 0,
            metadata=self.metadata,
            created_at=self.created_at,
            owner=self.owner,
        )


class ExecutionItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    turn_id = UnicodeAttribute()
    execution_id = UnicodeAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, session_id: str, execution: Execution) -> ExecutionItem:
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.execution_sk(execution.turn_id, execution.id),
            tenant=tenant,
            agent_id=agent_id,
            session_id=session_id,
            turn_id=execution.turn_id,
            execution_id=execution.id,
            doc=execution.model_dump_json(),
        )

    def to_execution(self) -> Execution:
        return Execution.model_validate_json(self.doc)


class EffectItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    turn_id = UnicodeAttribute()
    sequence = NumberAttribute()
    effect_id = UnicodeAttribute()
    doc = UnicodeAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, session_id: str, effect: Effect) -> EffectItem:
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.effect_sk(effect.turn_id, effect.sequence),
            tenant=tenant,
            agent_id=agent_id,
            session_id=session_id,
            turn_id=effect.turn_id,
            sequence=effect.sequence,
            effect_id=effect.effect_id,
            doc=effect.model_dump_json(),
        )

    def to_effect(self) -> Effect:
        return effect_from_json(self.doc)


class EffectIdItem(Item):
    """Holds an effect id of a turn, so a second effect with the same id is refused."""

    turn_id = UnicodeAttribute()
    effect_id = UnicodeAttribute()
    sequence = NumberAttribute()

    @classmethod
    def of(cls, tenant: str, agent_id: str, session_id: str, effect: Effect) -> EffectIdItem:
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.effect_id_sk(effect.turn_id, effect.effect_id),
            turn_id=effect.turn_id,
            effect_id=effect.effect_id,
            sequence=effect.sequence,
        )


class SessionIndexItem(Item):
    """The memory index a session opened with."""

    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    text = UnicodeAttribute()
    built_at = IsoDateTimeAttribute()

    @classmethod
    def of(
        cls, tenant: str, agent_id: str, session_id: str, text: str, built_at: datetime
    ) -> SessionIndexItem:
        return cls(
            keys.session_pk(tenant, agent_id, session_id),
            keys.SESSION_INDEX,
            tenant=tenant,
            agent_id=agent_id,
            session_id=session_id,
            text=text,
            built_at=built_at,
        )
