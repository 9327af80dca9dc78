"""Consolidation: a review of an agent's whole record memory rather than one turn's messages.
Twins are merged, contradictions resolved to the newer fact, stale events expired and pins kept
within their budget (consolidation_plan has the rules). `POST /v1/agents/{id}/-/consolidate`
runs it; the embedded worker and the cloud's schedule run it every `consolidation.every`.

It runs against a live agent: the plan is made from the records as read, and each change is
written on its own, only while its record is still at the version the plan read (and the record
kept in its place still ACTIVE). A record a turn changed meanwhile is left alone and reported
as skipped: the concurrent write wins and is never lost. The next run sees it as it is then.

Each run (not a dry run) is kept (ConsolidationStore) with its plan, counts, usage and
failures, and what it changed is announced as one agent.memory_updated.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..kernel.durations import parse_duration
from ..kernel.errors import NotFound, PreconditionFailed
from ..kernel.events import Change, Event, EventPublisher
from ..kernel.ids import new_id
from ..kernel.models import Page, utcnow
from ..kernel.paging import check_limit, decode_cursor, page, str_field
from ..manifests import Manifest
from ..records import (
    Provenance,
    Record,
    RecordOperation,
    RecordQuery,
    RecordService,
    RecordStatus,
    RecordVersion,
    RecordWrite,
    cited,
)
from ..turns import ManifestCache
from ..usage import UsageEntry, usage_rows
from .consolidation_models import ConsolidationRun, PlannedAction, RunUsage
from .consolidation_plan import Cosine, PlanRules, counts, needs_meaning, plan
from .restatements import TWIN_AT

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)

SCHEDULED = "system:consolidation"
RUN_PREFIX = "con"
_PAGE = 500

__all__ = ["SCHEDULED", "TWIN_AT", "ConsolidationService"]


class ConsolidationService:
    """Plans and applies consolidations of an agent's record memory, and lists its runs."""

    def __init__(
        self,
        store: Store,
        manifests: ManifestCache,
        records: RecordService,
        events: EventPublisher,
    ) -> None:
        self._store = store
        self._manifests = manifests
        self._records = records
        self._events = events

    def consolidate(
        self, tenant: str, agent_id: str, actor: str, dry_run: bool = False
    ) -> ConsolidationRun:
        """One run: the plan, and unless `dry_run` its changes applied and the run kept."""
        manifest = self.manifest(tenant, agent_id)
        now = utcnow()
        run = ConsolidationRun(
            tenant=tenant,
            agent_id=agent_id,
            id=new_id(RUN_PREFIX),
            status="RUNNING",
            dry_run=dry_run,
            actor=actor,
            started_at=now,
        )
        active = self._active(tenant, agent_id, now)
        usage: list[RunUsage] = []
        actions = plan(active, _rules(manifest), now, self._cosine(tenant, agent_id, active, usage))
        if dry_run:
            return run.model_copy(
                update={
                    "status": "DONE",
                    "finished_at": utcnow(),
                    "actions": actions,
                    "counts": counts(actions, len(active)),
                    "usage": usage,
                }
            )
        self._store.save_consolidation(run)
        applied: list[PlannedAction] = []
        changes: list[Change] = []
        failures: list[str] = []
        wrote: dict[str, int] = {}  # the versions this run left, which later actions may change
        try:
            for action in actions:
                done, made = self._apply(tenant, agent_id, run, action, wrote)
                applied.append(done)
                changes += made
        except Exception as exc:  # recorded on the run, then raised as it came
            failures.append(f"{type(exc).__name__}: {exc}"[:2_000])
            raise
        finally:
            # A change written is announced, even when a later one failed.
            self._publish(tenant, agent_id, run.id, changes)
            left = actions[len(applied) :]
            finished = run.model_copy(
                update={
                    "status": "FAILED" if failures else "DONE",
                    "finished_at": utcnow(),
                    "actions": applied + left,
                    "counts": counts(applied, len(active)),
                    "usage": usage,
                    "failures": failures,
                }
            )
            self._store.save_consolidation(finished)
            logger.info(
                "memory consolidated",
                extra={
                    "agent_id": agent_id,
                    "run_id": run.id,
                    "status": finished.status,
                    "changed": len(changes),
                },
            )
        return finished

    def runs(
        self, tenant: str, agent_id: str, limit: int | None, cursor: str | None
    ) -> Page[ConsolidationRun]:
        """The agent's runs, newest first."""
        size = check_limit(limit)
        self.manifest(tenant, agent_id)
        before = str_field(decode_cursor(cursor), "before")
        found = self._store.list_consolidations(tenant, agent_id, size + 1, before)
        return page(found, size, lambda last: {"before": last.id})

    def manifest(self, tenant: str, agent_id: str) -> Manifest:
        """The agent's current manifest; 404 when there is no such agent."""
        agent = self._store.get_agent(tenant, agent_id)
        if agent is None:
            raise NotFound(f"agent {agent_id!r} does not exist", code="agent_not_found")
        return self._manifests.at_version(tenant, agent_id, agent.manifest_version)

    # -- pieces ---------------------------------------------------------------------------------

    def _active(self, tenant: str, agent_id: str, now: datetime) -> list[Record]:
        """Every ACTIVE live record of the agent, of every scope and session, as read now."""
        query = RecordQuery(include_all_sessions=True, at=now)
        found: list[Record] = []
        before: str | None = None
        while True:
            batch = self._store.find_records(tenant, agent_id, query, _PAGE, before)
            found += batch
            if len(batch) < _PAGE:
                return found
            before = batch[-1].id

    def _cosine(
        self, tenant: str, agent_id: str, records: Sequence[Record], usage: list[RunUsage]
    ) -> Cosine:
        """Cosine of two records' summaries, with the embedder search uses, for the records
        words alone do not settle (one batch, its usage kept); None without an embedder."""
        embedder = self._records.search.embedder
        wanted = needs_meaning(records) if embedder is not None else set()
        if embedder is None or not wanted:
            return lambda a, b: None
        ids = sorted(wanted)
        summaries = {r.id: r.summary for r in records}
        embedding = embedder.embed([summaries[i] for i in ids])
        vectors = {
            i: [float(x) for x in row] for i, row in zip(ids, embedding.vectors, strict=True)
        }
        entry = UsageEntry("embed", embedding.model_id, embedding.input_tokens)
        usage.append(
            RunUsage(purpose="embed", model_id=entry.model_id, input_tokens=entry.input_tokens)
        )
        self._store.add_usage(tenant, agent_id, usage_rows(agent_id, None, [entry]))

        def cosine(a: Record, b: Record) -> float | None:
            va, vb = vectors.get(a.id), vectors.get(b.id)
            if va is None or vb is None:
                return None
            return sum(x * y for x, y in zip(va, vb, strict=True))

        return cosine

    def _apply(
        self,
        tenant: str,
        agent_id: str,
        run: ConsolidationRun,
        action: PlannedAction,
        wrote: dict[str, int],
    ) -> tuple[PlannedAction, list[Change]]:
        """Write one action while its record is as the plan read it (or as this run left it);
        skipped otherwise. A merge also has the kept record cite the messages its twin cited,
        so what either was found by still finds the one left."""
        wanted = [action.record_id] + ([action.kept_id] if action.kept_id else [])
        now = utcnow()
        found = {r.id: r.seen_at(now) for r in self._store.get_records(tenant, agent_id, wanted)}
        record = found.get(action.record_id)
        if record is None or record.version not in (action.version, wrote.get(record.id)):
            return _skipped(action, "the record changed meanwhile"), []
        if record.status is not RecordStatus.ACTIVE:
            return _skipped(action, f"the record is {record.status.value} now"), []
        writes = [self._write(record, action, run, now)]
        if action.kept_id is not None:
            kept = found.get(action.kept_id)
            if kept is None or kept.status is not RecordStatus.ACTIVE:
                return _skipped(action, f"{action.kept_id} is no longer ACTIVE"), []
            sources = (
                cited(kept.provenance.sources, record.provenance.sources)
                if action.action == "merge"
                else None
            )
            if sources is not None:
                provenance = kept.provenance.model_copy(update={"sources": sources})
                update = {"provenance": provenance, "version": kept.version + 1, "updated_at": now}
                writes.append(self._version(kept, update, RecordOperation.RESTATE, run, now))
        try:
            self._store.write_records(tenant, agent_id, writes)
        except PreconditionFailed:
            return _skipped(action, "the record changed meanwhile"), []
        wrote.update((w.record.id, w.record.version) for w in writes)
        return action, [
            Change(
                id=w.record.id, operation=w.versions[0].operation.value, version=w.record.version
            )
            for w in writes
        ]

    def _write(
        self, record: Record, action: PlannedAction, run: ConsolidationRun, now: datetime
    ) -> RecordWrite:
        update: dict[str, object] = {"version": record.version + 1, "updated_at": now}
        if action.action in ("merge", "supersede"):
            update |= {
                "status": RecordStatus.SUPERSEDED,
                "replaced_by": action.kept_id,
                "pinned": False,
            }
            operation = RecordOperation.SUPERSEDE
        elif action.action == "expire":
            # The expiry path an app's PATCH takes: reads judge it EXPIRED from now on, the
            # sweeper (or DynamoDB's TTL) does the rest.
            update |= {"expires_at": now}
            operation = RecordOperation.SET_EXPIRY
        else:
            update |= {"pinned": False}
            operation = RecordOperation.UNPIN
        return self._version(record, update, operation, run, now)

    def _version(
        self,
        record: Record,
        update: dict[str, object],
        operation: RecordOperation,
        run: ConsolidationRun,
        now: datetime,
    ) -> RecordWrite:
        """`record` changed by `update` (its text never), written by the run as `operation`."""
        changed = record.model_copy(update=update)
        search = self._records.search
        by = Provenance(actor=run.actor, trigger_run_id=run.id)
        return RecordWrite(
            index=search.doc_without_vector(changed) if search.inline else None,
            record=changed,
            expected_version=record.version,
            versions=[RecordVersion(record=changed, operation=operation, changed_by=by, at=now)],
        )

    def _publish(self, tenant: str, agent_id: str, run_id: str, changes: list[Change]) -> None:
        if not changes:
            return
        event = Event(
            type="agent.memory_updated",
            tenant=tenant,
            agent_id=agent_id,
            effect_id=f"eff_consolidation_{run_id}",
            changes=changes,
            at=utcnow(),
        )
        self._events.publish([event])


def _rules(manifest: Manifest) -> PlanRules:
    memory = manifest.harness.memory
    stale = memory.consolidation.stale_after if memory.consolidation else None
    lifetime = stale or memory.expire_after.get("event")
    return PlanRules(
        event_lifetime=_span(lifetime),
        pin_budget=memory.pinned.max_tokens if memory.pinned else None,
    )


def _span(text: str | None) -> timedelta | None:
    return parse_duration(text) if text else None


def _skipped(action: PlannedAction, why: str) -> PlannedAction:
    return action.model_copy(update={"skipped": why})
