"""The record tools a turn calls: add_memory, read_memory, delete_memory and search_memory.
Writes are staged on the turn (applied at its commit) and replayed writes apply once; the
checks here are the tool's (declared kinds and labels, writable scope, the target's status),
with the pin budget and the turn's budget checked before anything is staged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from .. import secrets
from ..kernel.errors import Conflict, DomainError, PreconditionFailed, problems_text
from ..kernel.ids import new_id
from ..kernel.models import utcnow
from ..kernel.paging import decode_cursor, page, str_field
from ..manifests import MemoryConfig, scope_list
from ..turns import (
    RecordAdd,
    RecordAddEffect,
    RecordDelete,
    RecordDeleteEffect,
    RecordEffect,
    ToolRefused,
    TurnContext,
    check_turn_budget,
    replayed_effects,
    staging_refused,
    stored_bytes,
)
from .io import (
    AddMemoryIn,
    DeletedRef,
    IdIn,
    MemoriesOut,
    RecordsOut,
    SearchMemoryIn,
    SourcesOut,
)
from .models import Record, RecordStatus
from .pins import Pins
from .ranking import RecordRanking
from .view import ALL_STATUSES, RecordView

if TYPE_CHECKING:
    from ..store import Store


class ToolInputError(DomainError):
    status = 400
    code = "memory.invalid_argument"


class MemoryNotFound(DomainError):
    status = 404
    code = "memory.not_found"


def tool_input_error(tool: str, exc: ValidationError) -> DomainError:
    """A record tool's bad input: every problem on one line, named by the tool."""
    return ToolInputError(f"{tool}: {problems_text(exc.errors(include_url=False))}")


def check_kind_and_labels(
    memory: MemoryConfig, kinds: frozenset[str], labels: dict[str, str]
) -> None:
    for kind in kinds:
        if kind not in memory.kinds:
            raise ToolInputError(
                f"kind {kind!r} is not declared; this agent's kinds are {', '.join(memory.kinds)}"
            )
    for name in labels:
        if name not in memory.labels:
            declared = ", ".join(memory.labels) or "none"
            raise ToolInputError(f"label {name!r} is not declared; declared labels: {declared}")


class RecordTools:
    """Each tool takes its validated input model and returns its output model."""

    def __init__(self, store: Store, view: RecordView, ranking: RecordRanking, pins: Pins) -> None:
        self._store = store
        self._view = view
        self._ranking = ranking
        self._pins = pins

    def add_memory(self, ctx: TurnContext, args: AddMemoryIn) -> MemoriesOut:
        # The registry checked the caller may write (ToolService.register's guard) first.
        memory = ctx.memory
        default_kind = "fact" if "fact" in memory.kinds else memory.kinds[0]
        kind = args.kind if args.kind is not None else default_kind
        check_kind_and_labels(memory, frozenset([kind]), args.labels)
        warnings = secrets.check(
            memory.secrets,
            secrets.record_fields(args.summary, args.content, args.labels),
            "add_memory",
        )
        scope = self._write_scope(ctx, args.scope)
        target = None
        if args.replaces is not None:
            target = self._writable_target(ctx, args.replaces, "replace")
        if args.pinned:
            self._pins.check_budget(ctx, args.summary, target.id if target else None)
        effect_id = ctx.effect_id("add_memory")
        done = self._already_done(ctx, effect_id)
        if done is not None:
            return MemoriesOut(memories=done)
        now = utcnow()
        record = Record(
            tenant=ctx.tenant,
            agent_id=ctx.agent_id,
            id=new_id("rec"),
            scope=scope,
            session_id=ctx.session_id if scope == "session" else None,
            summary=args.summary,
            content=args.content,
            kind=kind,
            labels=args.labels,
            pinned=args.pinned,
            replaces=target.id if target else None,
            preview=ctx.preview,
            provenance=ctx.provenance(),
            created_at=now,
            updated_at=now,
        )
        # Superseded: the target is written again.
        replaced = stored_bytes(target) if target is not None and not ctx.preview else 0
        self._stage(ctx, effect_id, RecordAdd(record=record, target_bytes=replaced))
        if warnings:
            return MemoriesOut(memories=[record], warnings=warnings)
        return MemoriesOut(memories=[record])

    def read_memory(self, ctx: TurnContext, args: IdIn) -> SourcesOut:
        record = self._view.get(ctx, args.id)
        if record is None:
            raise MemoryNotFound(f"no memory record {args.id!r} that this agent can read")
        return SourcesOut(sources=[record])

    def delete_memory(self, ctx: TurnContext, args: IdIn) -> MemoriesOut:
        # The registry checked the caller may write (ToolService.register's guard) first.
        effect_id = ctx.effect_id("delete_memory")
        done = self._already_done(ctx, effect_id)
        if done is not None:
            return MemoriesOut(memories=done)
        if ctx.turn.replay_of is not None:
            # A replay deleting what its original already deleted applies nothing again.
            current = self._view.get(ctx, args.id)
            if current is not None and current.status is RecordStatus.DELETED:
                return MemoriesOut(memories=[current])
        target = self._writable_target(ctx, args.id, "delete")
        if ctx.preview:
            # A preview turn never changes a live record: it names it in a DELETED preview record.
            now = utcnow()
            record = target.model_copy(
                update={
                    "id": new_id("rec"),
                    "status": RecordStatus.DELETED,
                    "preview": True,
                    "replaces": target.id,
                    "replaced_by": None,
                    "pinned": False,
                    "version": 1,
                    "provenance": ctx.provenance(),
                    "created_at": now,
                    "updated_at": now,
                }
            )
            self._stage(ctx, effect_id, RecordAdd(record=record))
            return MemoriesOut(memories=[record])
        self._stage(ctx, effect_id, RecordDelete(id=target.id, target_bytes=stored_bytes(target)))
        deleted = target.model_copy(update={"status": RecordStatus.DELETED})
        return MemoriesOut(memories=[deleted])

    def search_memory(self, ctx: TurnContext, args: SearchMemoryIn) -> RecordsOut:
        kinds = args.kinds()
        check_kind_and_labels(ctx.memory, kinds, args.labels)
        if args.ids and not args.query:
            return self._read_ids(ctx, args.ids, kinds, args.labels)
        limit = args.limit or ctx.memory.search.max_results
        query = self._view.query_for(
            ctx, kinds=kinds, labels=args.labels, ids=frozenset(args.ids or ())
        )
        if args.query:
            ranked = self._ranking.ranked(ctx, args.query, query, limit)
            return RecordsOut(records=ranked, next=None)
        after = str_field(decode_cursor(args.after), "before") if args.after else None
        records = self._view.find(ctx, query, limit + 1, before=after)
        result = page(records, limit, lambda last: {"before": last.id})
        return RecordsOut(records=result.items, next=result.next)

    def _read_ids(
        self, ctx: TurnContext, ids: list[str], kinds: frozenset[str], labels: dict[str, str]
    ) -> RecordsOut:
        """search_memory's `ids` reads records by id (the spec), as read_memory does: whatever
        their status (a superseded one names its replacement in replacedBy, a deleted one says
        DELETED), newest first as a listing is; `kind` and `labels` still filter. An id this
        turn cannot read (none such, another session's, a preview record for a live turn) is
        in notFound, in the order asked."""
        asked = list(dict.fromkeys(ids))
        found = self._view.get_many(ctx, asked)
        query = self._view.query_for(ctx, kinds=kinds, labels=labels, statuses=ALL_STATUSES)
        records = [found[rid] for rid in sorted(found, reverse=True) if query.matches(found[rid])]
        missing = [rid for rid in asked if rid not in found]
        return RecordsOut(records=records, next=None, not_found=missing)

    def _write_scope(self, ctx: TurnContext, requested: str | None) -> str:
        write = ctx.memory.scope.write
        if requested is None:
            if "session" in write:
                return "session"
            if "agent" in write:
                return "agent"
            raise ToolRefused(
                "add_memory is refused: this agent writes no scope "
                "(harness.memory.scope.write is empty)"
            )
        if requested not in ("session", "agent"):
            raise ToolInputError(f"scope must be session or agent, not {requested!r}")
        if requested not in write:
            # Nothing is staged: the refusal says which setting decides, so it can be changed.
            raise ToolRefused(
                f"add_memory is refused: this agent's manifest does not allow {requested} scope: "
                f"scope.write is {scope_list(write)}"
            )
        return requested

    def _writable_target(self, ctx: TurnContext, record_id: str, verb: str) -> Record:
        target = self._view.get(ctx, record_id)
        if target is None:
            raise MemoryNotFound(f"no memory record {record_id!r} that this agent can {verb}")
        if target.scope not in ctx.memory.scope.write:
            raise ToolRefused(
                f"cannot {verb} {record_id!r}: it has {target.scope} scope, which "
                "this agent does not write"
            )
        if target.status is not RecordStatus.ACTIVE:
            raise Conflict(
                f"cannot {verb} {record_id!r}: it is {target.status.value}"
                + (f" (replaced by {target.replaced_by})" if target.replaced_by else ""),
                code="memory.not_active",
            )
        return target

    def _already_done(self, ctx: TurnContext, effect_id: str) -> list[Record | DeletedRef] | None:
        """The output of a write this turn already staged, or that the turn it replays (or an
        earlier replay of it) committed: a replayed write is applied once."""
        for effect in [*self._view.staged(ctx), *replayed_effects(self._store, ctx)]:
            if effect.effect_id == effect_id and isinstance(effect, RecordEffect):
                return [self._effect_output(ctx, effect)]
        return None

    def _effect_output(self, ctx: TurnContext, effect: RecordEffect) -> Record | DeletedRef:
        current = self._view.get(ctx, effect.record_id)
        if current is not None:
            return current
        match effect:
            case RecordAddEffect():
                return effect.payload.record
            case RecordDeleteEffect():
                return DeletedRef(id=effect.record_id)

    def _stage(self, ctx: TurnContext, effect_id: str, payload: RecordAdd | RecordDelete) -> None:
        staged = self._view.staged_all(ctx)
        check_turn_budget(staged, payload)
        turn_id, sequence = ctx.turn.id, len(staged) + 1
        effect: RecordEffect
        if isinstance(payload, RecordDelete):
            by = payload.model_copy(update={"by": ctx.provenance()})
            effect = RecordDeleteEffect(
                effect_id=effect_id, turn_id=turn_id, sequence=sequence, payload=by
            )
        else:
            effect = RecordAddEffect(
                effect_id=effect_id, turn_id=turn_id, sequence=sequence, payload=payload
            )
        try:
            self._store.stage_effect(ctx.tenant, ctx.agent_id, ctx.session_id, effect)
        except PreconditionFailed as exc:
            raise staging_refused(self._store, ctx) from exc
