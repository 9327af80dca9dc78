"""Record memory: `RecordService`, the façade the composition root builds. It holds the turn's
commit glue (staged record writes into store writes against the current heads, `plan.py`) and
delegates to the modules along the seams: the record tools (`tools`), ranking (`ranking`),
pins and instructions (`pins`), the management API (`admin`). What a turn may stage is the
turns capability's (`domain/turns/budget.py`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..kernel.events import Change, EventPublisher
from ..kernel.models import Page, Turn, utcnow
from ..manifests import Manifest
from ..search import SearchService
from ..turns import (
    Effect,
    ManifestCache,
    RecordEffect,
    TurnContext,
)
from . import plan as planning
from .admin import RecordAdmin
from .as_of import RecordsAsOf
from .expiry import with_lifetimes
from .io import AddMemoryIn, IdIn, MemoriesOut, RecordsOut, SearchMemoryIn, SourcesOut
from .models import Record, RecordQuery, RecordVersion, RecordWrite
from .pins import MEMORY_RULES, Pins, pin_line, pin_tokens
from .ranking import RecordRanking, index_filter, rank_lexical
from .tools import (
    MemoryNotFound,
    RecordTools,
    ToolInputError,
    check_kind_and_labels,
    tool_input_error,
)
from .view import ALL_STATUSES, RecordView

if TYPE_CHECKING:
    from ..store import Store

__all__ = [
    "ALL_STATUSES",
    "MEMORY_RULES",
    "MemoryNotFound",
    "RecordService",
    "ToolInputError",
    "check_kind_and_labels",
    "index_filter",
    "pin_line",
    "pin_tokens",
    "rank_lexical",
    "tool_input_error",
]


class RecordService:
    """Record memory as tools within a turn and as a management API for apps."""

    def __init__(
        self,
        store: Store,
        events: EventPublisher,
        search: SearchService,
        manifests: ManifestCache | None = None,
    ) -> None:
        self._store = store
        self._search = search
        self.view = RecordView(store)
        self._ranking = RecordRanking(store, search, self.view)
        self._manifests = manifests or ManifestCache(store)
        self._pins = Pins(self.view, self._manifests)
        self._tools = RecordTools(store, self.view, self._ranking, self._pins)
        self._admin = RecordAdmin(store, events, search, self._ranking)
        self._as_of = RecordsAsOf(store, search)

    @property
    def search(self) -> SearchService:
        return self._search

    # -- tools (record_tools) -------------------------------------------------------------------

    def add_memory(self, ctx: TurnContext, args: AddMemoryIn) -> MemoriesOut:
        return self._tools.add_memory(ctx, args)

    def read_memory(self, ctx: TurnContext, args: IdIn) -> SourcesOut:
        return self._tools.read_memory(ctx, args)

    def delete_memory(self, ctx: TurnContext, args: IdIn) -> MemoriesOut:
        return self._tools.delete_memory(ctx, args)

    def search_memory(self, ctx: TurnContext, args: SearchMemoryIn) -> RecordsOut:
        return self._tools.search_memory(ctx, args)

    # -- ranking (record_ranking) ---------------------------------------------------------------

    def ranked(self, ctx: TurnContext, text: str, query: RecordQuery, limit: int) -> list[Record]:
        """Records the turn sees, best match for `text` first (recall and extraction ask)."""
        return self._ranking.ranked(ctx, text, query, limit)

    def rechecked(
        self,
        tenant: str,
        agent_id: str,
        wanted: list[str],
        query: RecordQuery,
        limit: int,
        adjust: Callable[[dict[str, Record], list[str]], None] | None = None,
    ) -> list[Record]:
        """The index's candidates, in its order, as the store has them now and matching
        `query` (agent search asks)."""
        return self._ranking.rechecked(tenant, agent_id, wanted, query, limit, adjust)

    def rechecked_as_of(
        self,
        tenant: str,
        agent_id: str,
        wanted: list[str],
        query: RecordQuery,
        at: datetime,
        limit: int,
    ) -> list[Record]:
        """The index's candidates, in its order, as they stood at `at` and matching `query`
        then (agent search as of an instant asks)."""
        return self._as_of.rechecked(tenant, agent_id, wanted, query, at, limit)

    # -- pins and instructions (pins) -----------------------------------------------------------

    def pinned(self, ctx: TurnContext) -> list[Record]:
        return self._pins.pinned(ctx)

    def instructions(self, ctx: TurnContext) -> tuple[str, list[Record]]:
        return self._pins.instructions(ctx)

    # -- commit ---------------------------------------------------------------------------------

    def writes_for_commit(
        self, turn: Turn, staged: Sequence[Effect]
    ) -> tuple[list[RecordWrite], list[Change]]:
        """Turn the staged effects (every kind, as the commit read them) into record writes
        against the current heads."""
        effects = planning.record_effects(staged)
        if planning.pins_records(effects):
            self._pins.check_at_commit(turn)
        return self.writes_for_effects(turn.tenant, turn.agent_id, effects)

    def writes_for_effects(
        self,
        tenant: str,
        agent_id: str,
        effects: Sequence[RecordEffect | planning.RecordRestate],
    ) -> tuple[list[RecordWrite], list[Change]]:
        """Record writes that apply `effects` (adds, replaces, deletes and restatements) in
        order against the current heads: a turn's staged writes, or a post-turn review's
        decisions."""
        if not effects:
            return [], []
        touched = planning.records_read(effects)
        stored = {r.id: r for r in self._store.get_records(tenant, agent_id, touched)}
        plan = planning.plan_records(effects, stored, utcnow())
        by_id = {d.id: d for d in self._search.docs_for(plan.created)}
        if self._search.inline:
            # Status changes keep their text: indexed without a new embedding.
            by_id.update((r.id, self._search.doc_without_vector(r)) for r in plan.restated)
        writes = [w.model_copy(update={"index": by_id.get(w.record.id)}) for w in plan.writes]
        if plan.created:
            writes = with_lifetimes(writes, self._lifetimes)
        return writes, plan.changes

    def _lifetimes(self, record: Record) -> dict[str, str]:
        """harness.memory.expire_after of the manifest version the record's turn ran (each
        turn runs the version it began with); of the agent's current one for an app's write."""
        version = record.provenance.manifest_version
        if version is not None:
            manifest = self._manifests.at_version(record.tenant, record.agent_id, version)
        else:
            agent = self._store.get_agent(record.tenant, record.agent_id)
            manifest = Manifest.model_validate(agent.manifest if agent else {})
        return dict(manifest.harness.memory.expire_after)

    def turn_memories(self, ctx: TurnContext) -> list[Record]:
        """The records a turn wrote or deleted, live and preview alike, as they stand now."""
        ids: list[str] = []
        for effect in self.view.staged(ctx):
            rid = effect.record_id
            if rid not in ids:
                ids.append(rid)
        stored = {r.id: r for r in self._store.get_records(ctx.tenant, ctx.agent_id, ids)}
        if ctx.turn.status.value == "open":
            overlay = dict(stored)
            self.view.overlay(ctx, overlay)
            stored = overlay
        return [stored[rid] for rid in ids if rid in stored]

    # -- management API (record_admin) ----------------------------------------------------------

    def list_records(
        self,
        tenant: str,
        agent_id: str,
        query: RecordQuery,
        text: str | None,
        limit: int | None,
        cursor: str | None,
        as_of: datetime | None = None,
    ) -> Page[Record]:
        return self._admin.list_records(tenant, agent_id, query, text, limit, cursor, as_of)

    def get(self, tenant: str, agent_id: str, record_id: str) -> Record:
        return self._admin.get(tenant, agent_id, record_id)

    def versions(
        self, tenant: str, agent_id: str, record_id: str, limit: int | None, cursor: str | None
    ) -> Page[RecordVersion]:
        return self._admin.versions(tenant, agent_id, record_id, limit, cursor)

    def delete(self, tenant: str, agent_id: str, record_id: str, actor: str) -> Record:
        """An app's delete: applies at once; the record and its versions stay readable."""
        return self._admin.delete(tenant, agent_id, record_id, actor)

    def set_expiry(
        self, tenant: str, agent_id: str, record_id: str, expires_at: datetime | None, actor: str
    ) -> Record:
        """An app sets or clears when a record expires (a new version)."""
        return self._admin.set_expiry(tenant, agent_id, record_id, expires_at, actor)
