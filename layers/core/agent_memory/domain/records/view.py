"""What a turn sees of record memory: committed records, its own staged writes on top, and the
preview rules (live turns never see preview records; preview turns see everything except the
records a preview record replaces)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.models import TurnStatus, utcnow
from ..turns import Effect, RecordAddEffect, RecordDeleteEffect, RecordEffect, TurnContext
from .models import Record, RecordQuery, RecordStatus

if TYPE_CHECKING:
    from ..store import Store

ALL_STATUSES = frozenset(RecordStatus)
# A review's writes waiting for (or refused) an app's approval: no memory of the agent's, so no
# turn reads them, even by id.
PROPOSALS = frozenset({RecordStatus.PENDING, RecordStatus.REJECTED})
CANDIDATES = 5000  # records ranked per lexical search; the search index replaces this cap


class RecordView:
    def __init__(self, store: Store) -> None:
        self._store = store

    def staged(self, ctx: TurnContext) -> list[RecordEffect]:
        """The turn's staged record writes (file changes are the file service's)."""
        return [e for e in self.staged_all(ctx) if isinstance(e, RecordEffect)]

    def staged_all(self, ctx: TurnContext) -> list[Effect]:
        return self._store.staged_effects(ctx.tenant, ctx.agent_id, ctx.session_id, ctx.turn.id)

    def query_for(self, ctx: TurnContext, **filters: object) -> RecordQuery:
        """The scopes a turn reads, with the caller's filters."""
        read = ctx.memory.scope.read
        return RecordQuery(
            include_agent="agent" in read,
            session_id=ctx.session_id if "session" in read else None,
            preview="any" if ctx.preview else "live",
            **filters,
        )

    def find(
        self,
        ctx: TurnContext,
        query: RecordQuery,
        limit: int = CANDIDATES,
        before: str | None = None,
    ) -> list[Record]:
        """Records the turn sees that match `query`, newest first: `limit` of them whenever
        that many exist, though the turn's own writes and a preview turn's hidden records may
        leave out some of what the store finds (read on until enough are left)."""
        hidden = self.hidden_by_preview(ctx) if ctx.preview else set()
        committed: dict[str, Record] = {}
        cursor = before
        while True:
            batch = self._store.find_records(ctx.tenant, ctx.agent_id, query, limit, cursor)
            committed.update((r.id, r) for r in batch if r.id not in committed)
            records = dict(committed)
            self.overlay(ctx, records)
            found = [
                r
                for r in records.values()
                if query.matches(r) and r.id not in hidden and (before is None or r.id < before)
            ]
            if len(batch) < limit or not batch:
                break  # the store has no more
            cursor = batch[-1].id
            # Below the cursor only what the store has not handed yet may still come.
            if sum(1 for r in found if r.id >= cursor) >= limit:
                break
        found.sort(key=lambda r: r.id, reverse=True)
        return found[:limit]

    def get(self, ctx: TurnContext, record_id: str) -> Record | None:
        """One record the turn may see (any status), staged writes included."""
        return self.get_many(ctx, [record_id]).get(record_id)

    def get_many(self, ctx: TurnContext, record_ids: list[str]) -> dict[str, Record]:
        """The records of `record_ids` the turn may see (any status), staged writes included."""
        wanted = set(record_ids)
        now = utcnow()
        records = {
            r.id: r.seen_at(now) for r in self._store.get_records(ctx.tenant, ctx.agent_id, wanted)
        }
        self.overlay(ctx, records, only=wanted)
        return {
            rid: record
            for rid, record in records.items()
            if rid in wanted
            and record.status not in PROPOSALS
            and (ctx.preview or not record.preview)
            and record.visible_to(ctx.session_id, ctx.memory.scope.read)
        }

    def hidden_by_preview(self, ctx: TurnContext) -> set[str]:
        """Ids that preview records name in `replaces`: a preview turn does not see them."""
        query = RecordQuery(statuses=ALL_STATUSES, preview="only", include_all_sessions=True)
        previews = self._store.find_records(ctx.tenant, ctx.agent_id, query, CANDIDATES, None)
        hidden = {r.replaces for r in previews if r.replaces}
        for effect in self.staged(ctx):
            if isinstance(effect, RecordAddEffect):
                staged = effect.payload.record
                if staged.preview and staged.replaces:
                    hidden.add(staged.replaces)
        return hidden

    def overlay(
        self, ctx: TurnContext, records: dict[str, Record], only: set[str] | None = None
    ) -> None:
        """Apply the turn's staged writes, in order, to `records` (the turn reads its own).
        A committed turn's writes are in the store already: laid over newer heads, they would
        bring back what later turns changed."""
        if ctx.turn.status is not TurnStatus.OPEN:
            return
        for effect in self.staged(ctx):
            if isinstance(effect, RecordAddEffect):
                record = effect.payload.record
                if only is None or record.id in only:
                    records[record.id] = record
                target = records.get(record.replaces) if record.replaces else None
                if (
                    target is not None
                    and not record.preview
                    and target.status is RecordStatus.ACTIVE
                ):
                    records[target.id] = target.model_copy(
                        update={"status": RecordStatus.SUPERSEDED, "replaced_by": record.id}
                    )
            elif isinstance(effect, RecordDeleteEffect):
                target = records.get(effect.payload.id)
                if target is not None and target.status is RecordStatus.ACTIVE:
                    records[target.id] = target.model_copy(update={"status": RecordStatus.DELETED})
