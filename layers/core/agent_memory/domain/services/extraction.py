"""Post-turn extraction: after a turn commits, the agent reviews the new messages for what is
worth remembering and adds, replaces, deletes or skips memories so restated facts do not pile up.

Each step is a plain method whose input and output are JSON, so the embedded worker runs them
in a row and the cloud runs them as Step Functions tasks:

    begin -> propose (one model call) -> decide (neighbours through the search port, one
    batched model call) -> apply (validate, then one transaction attributed to the turn) ;
    fail (records the failure on the turn) when a step has failed for good.

A review never fails or blocks its turn: the turn is committed before it starts.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Sequence
from typing import Any

from ..effects import RecordAdd, RecordAddEffect, RecordDelete, RecordDeleteEffect, RecordEffect
from ..errors import Conflict, DomainError, InvalidRequest
from ..events import Change, memory_updated
from ..extraction.job import ExtractionJob
from ..extraction.model import Candidate, Existing, MemoryModel, Message, ModelUsage
from ..extraction.model import Decision as ModelDecision
from ..extraction.pipeline import (
    DEFAULT_INSTRUCTIONS,
    Dropped,
    ValidDecision,
    extraction_due,
    scope_guidance,
    validate,
    window,
)
from ..history import HistoryEvent
from ..ids import new_id
from ..metrics import EXTRACTION_FAILURES, EXTRACTION_RUNS, NO_METRICS, Metrics
from ..models import (
    UNFINISHED_EXTRACTION,
    Extraction,
    ExtractionStatus,
    Turn,
    TurnStatus,
    utcnow,
)
from ..ports import EventPublisher, PreconditionFailed, Store
from ..records import Provenance, Record, RecordQuery
from ..retry import TryAgain, optimistic
from ..usage import ModelCall, usage_rows
from .records import RecordService, rank_lexical, stored_bytes
from .turn_context import Caller, ManifestCache, TurnContext

logger = logging.getLogger(__name__)

# A review reads at most WINDOW_MESSAGES messages of at most MAX_READ_TURNS turns, oldest first
# (the turns it reads are flagged in its transaction: with its records, within DynamoDB's 100
# items a transaction; the rest wait for the next review). It keeps at most MAX_CANDIDATES
# candidates of at most MAX_PROPOSAL_BYTES (Step Functions passes 256 KB between steps), and
# shows each candidate its NEIGHBOURS most similar memories.
WINDOW_MESSAGES = 200
MAX_READ_TURNS = 12
MAX_CANDIDATES = 20
MAX_PROPOSAL_BYTES = 96_000
NEIGHBOURS = 5
# ... plus up to RECENT_SHOWN of the RECENT newest records that share words with it.
RECENT = 20
RECENT_SHOWN = 2
# Events read to count the messages added since the last review ({"messages": N}).
COUNT_LIMIT = 10_000
_APPLY_ATTEMPTS = 10
# What one review's transaction may write, estimated as JSON (DynamoDB takes 4 MB, keys, the
# turns it flags read and escapes beside).
MAX_REVIEW_BYTES = 3 * 1024 * 1024
_WINDOW_ATTEMPTS = 5


class ReviewWindowMoved(DomainError):
    """Another review read some of this review's messages and finished first: nothing of this
    one was applied; it starts again from `begin` with what is still unread."""

    status = 409
    code = "review_window_moved"


class ExtractionService:
    def __init__(
        self,
        store: Store,
        manifests: ManifestCache,
        records: RecordService,
        events: EventPublisher,
        model: MemoryModel,
        metrics: Metrics = NO_METRICS,
    ) -> None:
        self._store = store
        self._manifests = manifests
        self._metrics = metrics
        self._records = records
        self._events = events
        self.model = model

    # -- the trigger ----------------------------------------------------------------------------

    def plan(self, turn: Turn) -> Extraction | None:
        """At commit: the review this turn starts, or None. Memory must be enabled and
        writable, the turn live (a preview turn never changes live memory), and `every` met:
        every turn with a message, or once N messages were added since the last review."""
        memory = self._manifests.memory(turn)
        if not memory.extracts or turn.preview:
            return None
        session = self._store.get_session(turn.tenant, turn.agent_id, turn.session_id)
        if session is None:
            return None
        since = session.reviewed_through
        every = memory.extraction.every
        own = window(self._store.turn_events(turn.tenant, turn.agent_id, turn.session_id, turn.id))
        added = len(own)
        if turn.sequence <= since:
            # Committed after a later turn's review finished: reviewed on its own, at once,
            # whatever `every` says (no later window starts before it).
            if not own:
                return None
            since = turn.sequence - 1
        elif every != "turn" and added < every.messages and turn.sequence - 1 > since:
            earlier = self._store.session_events(
                turn.tenant,
                turn.agent_id,
                turn.session_id,
                COUNT_LIMIT,
                None,
                from_turn=since + 1,
                to_turn=turn.sequence - 1,
            )
            added += len(window(self._unread(turn, earlier)))
            if not extraction_due(every, added):
                return None
        elif not extraction_due(every, added):
            return None
        return Extraction(
            status=ExtractionStatus.QUEUED,
            from_turn=since,
            through=turn.sequence,
            messages=added,
            queued_at=utcnow(),
        )

    def unplanned(self, turn: Turn) -> Extraction | None:
        """A review queued without counting (when `plan` could not read what it needed)."""
        memory = self._manifests.memory(turn)
        if not memory.extracts or turn.preview:
            return None
        return Extraction(
            status=ExtractionStatus.QUEUED,
            from_turn=0,
            through=turn.sequence,
            queued_at=utcnow(),
        )

    def rerun(self, turn: Turn) -> Extraction:
        """Queue a failed review again (its turn's messages are still unread); 409 unless it
        failed. The caller starts it: a new run, a new execution."""
        state = turn.extraction
        if state is None:
            raise Conflict(f"turn {turn.id!r} started no review", code="no_extraction")
        if state.status is not ExtractionStatus.FAILED:
            raise Conflict(
                f"the review of turn {turn.id!r} is {state.status.value}; only a failed one "
                "runs again",
                code="extraction_not_failed",
                extraction=_dump(state),
            )
        queued = state.model_copy(
            update={
                "status": ExtractionStatus.QUEUED,
                "runs": state.runs + 1,
                "error": None,
                "ended_at": None,
                "queued_at": utcnow(),
            }
        )
        try:
            self._store.update_extraction(turn, queued, (ExtractionStatus.FAILED,))
        except PreconditionFailed as exc:
            raise Conflict(
                "the review changed meanwhile; read the turn again", code="extraction_busy"
            ) from exc
        return queued

    # -- the steps ------------------------------------------------------------------------------

    def begin(self, job: ExtractionJob) -> dict[str, Any]:
        """Mark the review running (one more attempt). `{"done": true}` when there is nothing
        to do: it finished already (a duplicate start), the turn has no review, or the turn is
        gone (its agent was deleted while the review waited)."""
        turn = self._store.get_turn(job.tenant, job.agent_id, job.session_id, job.turn_id)
        if turn is None or not job.is_for(turn):
            return {"done": True}
        state = turn.extraction
        if state is None or state.status is ExtractionStatus.DONE:
            return {"done": True}
        # The window starts after the session's last finished review, which may have moved on
        # since the commit queued this one: messages are reviewed once, not once a turn.
        session = self._store.get_session(job.tenant, job.agent_id, job.session_id)
        mark = session.reviewed_through if session else 0
        since = max(state.from_turn, mark) if mark < state.through else state.from_turn
        running = state.model_copy(
            update={
                "status": ExtractionStatus.RUNNING,
                "attempts": state.attempts + 1,
                "from_turn": since,
            }
        )
        try:
            self._store.update_extraction(turn, running, UNFINISHED_EXTRACTION)
        except PreconditionFailed:
            return {"done": True}
        return {"done": False}

    def propose(self, job: ExtractionJob) -> dict[str, Any]:
        """Load the window and ask the model for candidates (one call)."""
        turn = self._turn(job)
        state = _state(turn)
        manifest = self._manifests.manifest(turn)
        memory = manifest.harness.memory
        messages, read, through = self.window(turn, state)
        if not messages:
            return {"messages": 0, "candidates": [], "usage": [], "read": read, "through": through}
        instructions = (memory.extraction.prompt or DEFAULT_INSTRUCTIONS) + scope_guidance(
            memory.scope.write
        )
        labels = {name: label.description for name, label in memory.labels.items()}
        result = self.model.propose(messages, instructions, list(memory.kinds), labels)
        self._record_usage(turn, result.usage, "memory")
        candidates = [c.model_dump(mode="json") for c in result.value[:MAX_CANDIDATES]]
        # What a review carries between steps stays well inside Step Functions' 256 KB payload.
        while candidates and len(json.dumps(candidates)) > MAX_PROPOSAL_BYTES:
            candidates.pop()
            logger.warning("extraction candidate left out: too large", extra={"turn_id": turn.id})
        return {
            "messages": len(messages),
            "candidates": candidates,
            "usage": [u.model_dump(mode="json") for u in result.usage],
            "read": read,
            "through": through,
        }

    def decide(self, job: ExtractionJob, proposal: dict[str, Any]) -> dict[str, Any]:
        """Find each candidate's most similar memories and ask the model, in one batched call,
        what to do with every candidate."""
        turn = self._turn(job)
        candidates = [Candidate.model_validate(c) for c in proposal.get("candidates", [])]
        if not candidates:
            return {"decisions": [], "shown": [], "usage": []}
        neighbours = self.neighbours(turn, candidates)
        result = self.model.decide(candidates, neighbours)
        self._record_usage(turn, result.usage, "memory")
        shown = sorted({e.id for group in neighbours.values() for e in group})
        return {
            "decisions": [d.model_dump(mode="json") for d in result.value],
            "shown": shown,
            "usage": [u.model_dump(mode="json") for u in result.usage],
        }

    def apply(
        self, job: ExtractionJob, proposal: dict[str, Any], decision: dict[str, Any]
    ) -> dict[str, Any]:
        """Validate the decisions and apply them in one transaction attributed to the turn,
        with the review's move to done; then publish the memory events. A re-run of a review
        that is done applies nothing and returns it as it is."""
        turn = self._turn(job)
        state = _state(turn)
        if state.status is ExtractionStatus.DONE:
            return _dump(state)
        memory = self._manifests.memory(turn)
        candidates = [Candidate.model_validate(c) for c in proposal.get("candidates", [])]
        decisions = [ModelDecision.model_validate(d) for d in decision.get("decisions", [])]
        # Replace and delete may name only the records shown as neighbours: those the review
        # may change. Any other id is dropped as unknown.
        valid, dropped = validate(
            decisions,
            candidates,
            decision.get("shown", []),
            memory.kinds,
            memory.labels,
            memory.scope.write,
            memory.secrets,
        )
        valid = self._corrections_keep_scope(turn, valid, memory.scope.write)
        valid, too_large = self._within_one_write(turn, valid)
        dropped += too_large
        usage = [
            ModelUsage.model_validate(u)
            for u in [*proposal.get("usage", []), *decision.get("usage", [])]
        ]
        counts = {"add": 0, "replace": 0, "delete": 0, "skip": 0}
        for each in valid:
            counts[each.decision.action] += 1
        done = state.model_copy(
            update={
                "status": ExtractionStatus.DONE,
                "messages": proposal.get("messages", state.messages),
                "through": proposal.get("through", state.through),
                "candidates": len(candidates),
                "added": counts["add"],
                "replaced": counts["replace"],
                "deleted": counts["delete"],
                "skipped": counts["skip"],
                "dropped": [f"candidate {d.decision.candidate}: {d.reason}" for d in dropped],
                "model_calls": len(usage),
                "input_tokens": sum(u.input_tokens for u in usage),
                "output_tokens": sum(u.output_tokens for u in usage),
                "error": None,
                "ended_at": utcnow(),
            }
        )
        effects = self._effects(turn, [(v.decision, v.candidate, v.scope) for v in valid])
        read = [str(t) for t in proposal.get("read", [])]

        def apply_once() -> dict[str, Any]:
            writes, changes = self._records.writes_for_effects(turn.tenant, turn.agent_id, effects)
            try:
                self._store.finish_extraction(turn, done, writes, read)
            except PreconditionFailed as lost:
                current = _state(self._turn(job))
                if current.status is ExtractionStatus.DONE:
                    return _dump(current)  # another run applied it first
                if self._read_meanwhile(turn, read):
                    raise ReviewWindowMoved(
                        "another review read some of these messages first; read the window again"
                    ) from None
                raise TryAgain from lost  # a record changed meanwhile: work the writes out again
            self._publish(turn, changes)
            self._metrics.count(EXTRACTION_RUNS, outcome="done")
            return _dump(done)

        return optimistic(
            apply_once,
            attempts=_APPLY_ATTEMPTS,
            exhausted=lambda: DomainError(
                "the review's records kept changing under it; it will be retried"
            ),
            retry_on=(),
        )

    def fail(self, job: ExtractionJob, error: str) -> dict[str, Any]:
        """Record on the turn that its review failed for good (after its retries); nothing when
        the turn is gone."""
        found = self._store.get_turn(job.tenant, job.agent_id, job.session_id, job.turn_id)
        if found is None or found.extraction is None or not job.is_for(found):
            return {}
        turn, state = found, found.extraction
        if state.status is ExtractionStatus.DONE:
            return _dump(state)
        failed = state.model_copy(
            update={
                "status": ExtractionStatus.FAILED,
                "error": error[:2_000] or "failed",
                "ended_at": utcnow(),
            }
        )
        try:
            self._store.update_extraction(turn, failed, UNFINISHED_EXTRACTION)
        except PreconditionFailed:
            return _dump(_state(self._turn(job)))
        logger.warning(
            "extraction failed",
            extra={"turn_id": turn.id, "session_id": turn.session_id, "error": failed.error},
        )
        self._metrics.count(EXTRACTION_FAILURES)
        return _dump(failed)

    def run(self, job: ExtractionJob) -> dict[str, Any]:
        """Every step in a row (the embedded worker; the state machine runs them as tasks).
        Exceptions propagate: the caller retries, then calls `fail`."""

        def review_once() -> dict[str, Any]:
            if self.begin(job)["done"]:
                turn = self._store.get_turn(job.tenant, job.agent_id, job.session_id, job.turn_id)
                return _dump(turn.extraction) if turn and turn.extraction else {}
            proposal = self.propose(job)
            decision = self.decide(job, proposal)
            return self.apply(job, proposal, decision)

        # Another review read part of the window first: begin again with what is still unread.
        return optimistic(
            review_once,
            attempts=_WINDOW_ATTEMPTS,
            exhausted=lambda: ReviewWindowMoved(
                "the review's window kept moving; it will be retried"
            ),
            retry_on=(ReviewWindowMoved,),
        )

    # -- pieces ---------------------------------------------------------------------------------

    def window(self, turn: Turn, state: Extraction) -> tuple[list[Message], list[str], int]:
        """The messages a review reads, the ids of the turns they come from, and the last turn
        sequence the review covers. They are the messages of the session's committed live
        turns in (from_turn, through] that no finished review has read, oldest first, whole
        turns while they fit in WINDOW_MESSAGES (a turn alone larger than that: its first
        WINDOW_MESSAGES); what does not fit is left for the next review."""
        events = self._store.session_events(
            turn.tenant,
            turn.agent_id,
            turn.session_id,
            COUNT_LIMIT,
            None,
            from_turn=state.from_turn + 1,
            to_turn=state.through,
        )
        groups: dict[str, list[HistoryEvent]] = {}
        for event in self._unread(turn, events):
            groups.setdefault(event.turn_id, []).append(event)
        messages: list[Message] = []
        read: list[str] = []
        through = state.through
        for turn_id, turn_events in sorted(groups.items(), key=lambda g: g[1][0].turn_sequence):
            some = window(turn_events)
            if not some:
                continue
            if read and (
                len(messages) + len(some) > WINDOW_MESSAGES or len(read) >= MAX_READ_TURNS
            ):
                through = turn_events[0].turn_sequence - 1
                break
            messages += some[:WINDOW_MESSAGES]
            read.append(turn_id)
        return messages, read, max(through, state.from_turn)

    def neighbours(self, turn: Turn, candidates: Sequence[Candidate]) -> dict[int, list[Existing]]:
        """Each candidate's most similar active memories among those the review may change."""
        memory = self._manifests.memory(turn)
        ctx = TurnContext(
            turn=turn,
            memory=memory,
            caller=Caller(role="agent"),
            root_turn=turn,  # only a tool call that stages writes needs its replay chain's root
        )
        write = memory.scope.write
        query = RecordQuery(
            include_agent="agent" in write,
            session_id=turn.session_id if "session" in write else None,
        )
        # The newest records straight from the store too: a search index fed from the stream
        # (the cloud) may not hold what the session's last reviews wrote a moment ago.
        recent = self._records.view.find(ctx, query, RECENT)
        found: dict[int, list[Existing]] = {}
        for index, candidate in enumerate(candidates):
            text = candidate.summary + (f"\n{candidate.content}" if candidate.content else "")
            records = self._records.ranked(ctx, text, query, NEIGHBOURS)
            shown = {r.id for r in records}
            records += [r for r in rank_lexical(text, recent) if r.id not in shown][:RECENT_SHOWN]
            found[index] = [
                Existing(id=r.id, summary=r.summary, content=r.content, kind=r.kind)
                for r in records
            ]
        self._record_usage(turn, ctx.usage)
        return found

    def _effects(
        self, turn: Turn, decided: list[tuple[ModelDecision, Candidate, str]]
    ) -> list[RecordEffect]:
        now = utcnow()
        effects: list[RecordEffect] = []
        for decision, candidate, scope in decided:
            by = Provenance(
                actor=f"agent:{turn.agent_id}@{turn.manifest_version}",
                execution=f"extraction:{turn.id}",
                manifest_version=turn.manifest_version,
                session_id=turn.session_id,
                turn_id=turn.id,
                trigger_run_id=turn.trigger_run_id,
                sources=list(candidate.sources),
            )
            if decision.action in ("add", "replace"):
                record = Record(
                    tenant=turn.tenant,
                    agent_id=turn.agent_id,
                    id=new_id("rec"),
                    scope="agent" if scope == "agent" else "session",
                    session_id=turn.session_id if scope == "session" else None,
                    summary=candidate.summary,
                    content=candidate.content,
                    kind=candidate.kind,
                    labels=dict(candidate.labels),
                    replaces=decision.target if decision.action == "replace" else None,
                    provenance=by,
                    created_at=now,
                    updated_at=now,
                )
                effects.append(
                    RecordAddEffect(
                        effect_id=f"extraction:{turn.id}:{len(effects)}",
                        turn_id=turn.id,
                        sequence=len(effects),
                        payload=RecordAdd(record=record),
                    )
                )
            elif decision.action == "delete" and decision.target is not None:
                # The review's validation drops a delete that names no target.
                effects.append(
                    RecordDeleteEffect(
                        effect_id=f"extraction:{turn.id}:{len(effects)}",
                        turn_id=turn.id,
                        sequence=len(effects),
                        payload=RecordDelete(id=decision.target, by=by),
                    )
                )
        return effects

    def _corrections_keep_scope(
        self, turn: Turn, valid: list[ValidDecision], write: Sequence[str]
    ) -> list[ValidDecision]:
        """A replacement of an agent-scope memory stays in agent scope when the agent writes
        it and the model did not choose a scope: a session-scope correction would take the
        fact away from every other session while this one kept a copy."""
        asked = [
            v.decision.target
            for v in valid
            if v.decision.action == "replace" and v.decision.target and v.candidate.scope is None
        ]
        if not asked or "agent" not in write:
            return valid
        records = self._store.get_records(turn.tenant, turn.agent_id, asked)
        agent_scope = {r.id for r in records if r.scope == "agent"}
        return [
            dataclasses.replace(v, scope="agent")
            if v.decision.action == "replace"
            and v.decision.target in agent_scope
            and v.candidate.scope is None
            else v
            for v in valid
        ]

    def _within_one_write(
        self, turn: Turn, valid: list[ValidDecision]
    ) -> tuple[list[ValidDecision], list[Dropped]]:
        """The decisions whose writes fit the one transaction a review applies them in, in
        the model's order: each new record is written twice (head and version), and so is each
        record replaced or deleted. Past MAX_REVIEW_BYTES, a decision is dropped (and said in
        the review's `dropped`) rather than the whole review failing on every try."""
        targets = [v.decision.target for v in valid if v.decision.target]
        stored = {
            r.id: stored_bytes(r)
            for r in self._store.get_records(turn.tenant, turn.agent_id, targets)
        }
        kept: list[ValidDecision] = []
        left: list[Dropped] = []
        used = 0
        for each in valid:
            action = each.decision.action
            cost = 0
            if action in ("add", "replace"):
                cost += 2 * len(json.dumps(each.candidate.model_dump(mode="json")))
            if action in ("replace", "delete") and each.decision.target:
                cost += 2 * stored.get(each.decision.target, 0)
            if cost and used + cost > MAX_REVIEW_BYTES:
                reason = "left out: the review's writes would pass what one transaction holds"
                left.append(Dropped(each.decision, reason))
                continue
            used += cost
            kept.append(each)
        return kept, left

    def _unread(self, turn: Turn, events: list[HistoryEvent]) -> list[HistoryEvent]:
        """The events among `events` of committed live turns no finished review has read."""
        unread: dict[str, bool] = {}
        kept = []
        for event in events:
            if event.turn_id not in unread:
                other = self._store.get_turn(
                    turn.tenant, turn.agent_id, turn.session_id, event.turn_id
                )
                unread[event.turn_id] = (
                    other is not None
                    and other.status is TurnStatus.COMMITTED
                    and not other.preview
                    and not other.reviewed
                )
            if unread[event.turn_id]:
                kept.append(event)
        return kept

    def _read_meanwhile(self, turn: Turn, read: Sequence[str]) -> bool:
        for turn_id in read:
            other = self._store.get_turn(turn.tenant, turn.agent_id, turn.session_id, turn_id)
            if other is not None and other.reviewed:
                return True
        return False

    def _turn(self, job: ExtractionJob) -> Turn:
        turn = self._store.get_turn(job.tenant, job.agent_id, job.session_id, job.turn_id)
        if turn is None or not job.is_for(turn):
            raise InvalidRequest(f"turn {job.turn_id!r} does not exist", code="turn_not_found")
        return turn

    def _record_usage(
        self, turn: Turn, calls: Sequence[ModelCall], purpose: str | None = None
    ) -> None:
        """Usage rows on the turn: model calls (`purpose` memory) or embeddings (each call's
        own purpose)."""
        if calls:
            rows = usage_rows(turn.agent_id, purpose, calls, turn=turn)
            self._store.add_usage(turn.tenant, turn.agent_id, rows)

    def _publish(self, turn: Turn, changes: list[Change]) -> None:
        if changes:
            self._events.publish(memory_updated(turn, changes, f"eff_extraction_{turn.id}"))


def _state(turn: Turn) -> Extraction:
    if turn.extraction is None:
        raise InvalidRequest(f"turn {turn.id!r} started no review", code="no_extraction")
    return turn.extraction


def _dump(state: Extraction) -> dict[str, Any]:
    return state.model_dump(mode="json", by_alias=True)
