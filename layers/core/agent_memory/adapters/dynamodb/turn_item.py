"""A turn's item: its state, its post-turn review and what its calls changed."""

from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from ...domain.kernel.events import updates_from_json, updates_json
from ...domain.kernel.models import Extraction, Turn, TurnStatus
from . import keys
from .item_base import IsoDateTimeAttribute, Item


class TurnItem(Item):
    tenant = UnicodeAttribute()
    agent_id = UnicodeAttribute()
    session_id = UnicodeAttribute()
    turn_id = UnicodeAttribute()
    sequence = NumberAttribute()
    status = UnicodeAttribute()
    preview = BooleanAttribute()
    replay_of = UnicodeAttribute(null=True)
    started_by = UnicodeAttribute()
    trigger_run_id = UnicodeAttribute(null=True)
    manifest_version = NumberAttribute()
    created_at = IsoDateTimeAttribute()
    ended_at = IsoDateTimeAttribute(null=True)
    # The post-turn review as JSON text (the form SqliteStore keeps), its status beside it.
    extraction = UnicodeAttribute(null=True)
    extraction_status = UnicodeAttribute(null=True)
    reviewed = BooleanAttribute(null=True)
    # How many effects the turn staged (stage_effect adds one; a commit ends the turn only at
    # the count it read). Absent on turns begun before it was kept: not checked for those.
    staged = NumberAttribute(null=True)
    # The facts the last review that read the turn proposed from its events (JSON list of
    # history_keys.EventKeys): the stream indexer makes their key documents.
    fact_keys = UnicodeAttribute(null=True)
    # When that review finished: the version of the key documents (a later review's replace
    # an earlier one's, whatever order the index sees them in).
    fact_keys_at = IsoDateTimeAttribute(null=True)
    # What each call of the committed turn changed (JSON list of MemoryUpdate, as SqliteStore
    # keeps it): the session's record of its memory.updated events.
    memory_updates = UnicodeAttribute(null=True)

    @classmethod
    def of(cls, turn: Turn) -> TurnItem:
        return cls(
            keys.session_pk(turn.tenant, turn.agent_id, turn.session_id),
            keys.turn_sk(turn.id),
            tenant=turn.tenant,
            agent_id=turn.agent_id,
            session_id=turn.session_id,
            turn_id=turn.id,
            sequence=turn.sequence,
            status=turn.status.value,
            preview=turn.preview,
            replay_of=turn.replay_of,
            started_by=turn.started_by,
            trigger_run_id=turn.trigger_run_id,
            manifest_version=turn.manifest_version,
            created_at=turn.created_at,
            ended_at=turn.ended_at,
            extraction=turn.extraction.model_dump_json() if turn.extraction else None,
            extraction_status=turn.extraction.status.value if turn.extraction else None,
            reviewed=turn.reviewed or None,
            memory_updates=updates_json(turn.memory_updates) if turn.memory_updates else None,
        )

    def to_turn(self) -> Turn:
        return Turn(
            tenant=self.tenant,
            agent_id=self.agent_id,
            session_id=self.session_id,
            id=self.turn_id,
            sequence=self.sequence,
            status=TurnStatus(self.status),
            preview=self.preview,
            replay_of=self.replay_of,
            started_by=self.started_by,
            trigger_run_id=self.trigger_run_id,
            manifest_version=self.manifest_version,
            created_at=self.created_at,
            ended_at=self.ended_at,
            extraction=Extraction.model_validate_json(self.extraction) if self.extraction else None,
            reviewed=bool(self.reviewed),
            memory_updates=updates_from_json(self.memory_updates),
        )
