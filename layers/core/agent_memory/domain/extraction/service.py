"""Post-turn extraction: after a turn commits, the agent reviews the new messages for what is
worth remembering and adds, replaces, deletes or skips memories so restated facts do not pile up.

Each step is a plain method whose input and output are JSON, so the embedded worker runs them
in a row and the cloud runs them as Step Functions tasks:

    begin -> propose (one model call) -> decide (neighbours through the search port, one
    batched model call) -> apply (validate, then one transaction attributed to the turn) ;
    fail (records the failure on the turn) when a step has failed for good.

A review never fails or blocks its turn: the turn is committed before it starts.

This module holds the steps; when a turn starts a review is extraction_trigger's, what a review
reads extraction_window's, and what it writes extraction_writes'.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..kernel.errors import Conflict, DomainError, InvalidRequest, PreconditionFailed
from ..kernel.events import Change, EventPublisher, memory_updated
from ..kernel.metrics import EXTRACTION_FAILURES, EXTRACTION_RUNS, NO_METRICS, Metrics
from ..kernel.models import UNFINISHED_EXTRACTION, Extraction, ExtractionStatus, Turn, utcnow
from ..kernel.retry import TryAgain, optimistic
from ..records import RecordRestate, RecordService
from ..turns import ManifestCache, RecordEffect
from ..usage import ModelCall, UsageEntry, usage_rows
from . import trigger as extraction_trigger
from .job import ExtractionJob
from .model import Candidate, Decisions, Existing, MemoryModel, Message, Proposal
from .pipeline import DEFAULT_INSTRUCTIONS, Dropped, ValidDecision, scope_guidance, validate
from .proposals import as_proposed, proposal_effects, proposed
from .restatements import Embed, reconcile
from .window import neighbours as find_neighbours
from .window import read_meanwhile, read_window
from .writes import corrections_keep_scope, fact_keys, finished, review_effects, within_one_write

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)

# A review reads at most WINDOW_MESSAGES messages of at most MAX_READ_TURNS turns, oldest first
# (the turns it reads are flagged in its transaction: with its records, within DynamoDB's 100
# items a transaction; the rest wait for the next review). It keeps at most MAX_CANDIDATES
# candidates of at most MAX_PROPOSAL_BYTES (Step Functions passes 256 KB between steps).
# What each candidate is shown is extraction_window's; what a review may write at once,
# extraction_writes'.
WINDOW_MESSAGES = 200
MAX_READ_TURNS = 12
MAX_CANDIDATES = 20
MAX_PROPOSAL_BYTES = 96_000
_APPLY_ATTEMPTS = 10
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
        """At commit: the review this turn starts, or None (extraction_trigger.planned)."""
        return extraction_trigger.planned(self._store, self._manifests.memory(turn), turn)

    def unplanned(self, turn: Turn) -> Extraction | None:
        """A review queued without counting (when `plan` could not read what it needed)."""
        return extraction_trigger.unplanned(self._manifests.memory(turn), turn)

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
                extraction=state.model_dump(mode="json", by_alias=True),
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

    def begin(self, job: ExtractionJob) -> bool:
        """Mark the review running (one more attempt); whether it is done already, with nothing
        to do: it finished already (a duplicate start), the turn has no review, or the turn is
        gone (its agent was deleted while the review waited)."""
        turn = self._store.get_turn(job.tenant, job.agent_id, job.session_id, job.turn_id)
        if turn is None or not job.is_for(turn):
            return True
        state = turn.extraction
        if state is None or state.status is ExtractionStatus.DONE:
            return True
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
            return True
        return False

    def propose(self, job: ExtractionJob) -> Proposal:
        """Load the window and ask the model for candidates (one call)."""
        turn = self._turn(job)
        state = _state(turn)
        manifest = self._manifests.manifest(turn)
        memory = manifest.harness.memory
        messages, read, through = self.window(turn, state)
        if not messages:
            return Proposal(messages=0, read=read, through=through)
        instructions = (memory.extraction.prompt or DEFAULT_INSTRUCTIONS) + scope_guidance(
            memory.scope.write
        )
        labels = {name: label.description for name, label in memory.labels.items()}
        result = self.model.propose(messages, instructions, list(memory.kinds), labels)
        self._record_usage(turn, result.usage, "memory")
        candidates = list(result.value[:MAX_CANDIDATES])
        # What a review carries between steps stays well inside Step Functions' 256 KB payload.
        while candidates and _size(candidates) > MAX_PROPOSAL_BYTES:
            candidates.pop()
            logger.warning("extraction candidate left out: too large", extra={"turn_id": turn.id})
        return Proposal(
            messages=len(messages),
            candidates=candidates,
            usage=list(result.usage),
            read=read,
            through=through,
        )

    def decide(self, job: ExtractionJob, proposal: Proposal) -> Decisions:
        """Find each candidate's most similar memories and ask the model, in one batched call,
        what to do with every candidate."""
        turn = self._turn(job)
        if not proposal.candidates:
            return Decisions()
        neighbours = self.neighbours(turn, proposal.candidates)
        result = self.model.decide(proposal.candidates, neighbours)
        self._record_usage(turn, result.usage, "memory")
        # Whatever the model decided, a restatement is skipped and a new value of a
        # single-valued attribute replaces the old (restatements.reconcile).
        checked = reconcile(proposal.candidates, neighbours, result.value, self._embed(turn))
        shown = sorted({e.id for group in neighbours.values() for e in group})
        return Decisions(decisions=checked, shown=shown, usage=list(result.usage))

    def apply(self, job: ExtractionJob, proposal: Proposal, decision: Decisions) -> Extraction:
        """Validate the decisions and apply them in one transaction attributed to the turn,
        with the review's move to done; then publish the memory events. A re-run of a review
        that is done applies nothing and returns it as it is."""
        turn = self._turn(job)
        state = _state(turn)
        if state.status is ExtractionStatus.DONE:
            return state
        candidates, valid, dropped = self._checked(turn, proposal, decision)
        usage = [*proposal.usage, *decision.usage]
        done = finished(state, proposal, len(candidates), valid, dropped, usage)
        harness = self._manifests.manifest(turn).harness
        reviewed = harness.memory.extraction.approval == "review"
        effects: Sequence[RecordEffect | RecordRestate]
        if reviewed:  # the writes wait for an app's approval (extraction_proposals)
            effects = proposal_effects(self._store, turn, valid)
            done = as_proposed(done, len(effects))
        else:
            effects = review_effects(turn, valid, decision.shown)
        read = list(proposal.read)
        keyed = harness.history.fact_keys
        wanted = not self.model.restates if keyed is None else keyed
        keys, key_docs = fact_keys(self._store, self._records.search, turn, done, proposal, wanted)

        def apply_once() -> Extraction:
            writes, changes = self._records.writes_for_effects(turn.tenant, turn.agent_id, effects)
            try:
                self._store.finish_extraction(turn, done, writes, read, keys, key_docs)
            except PreconditionFailed as lost:
                current = _state(self._turn(job))
                if current.status is ExtractionStatus.DONE:
                    return current  # another run applied it first
                if read_meanwhile(self._store, turn, read):
                    raise ReviewWindowMoved(
                        "another review read some of these messages first; read the window again"
                    ) from None
                raise TryAgain from lost  # a record changed meanwhile: work the writes out again
            self._publish(turn, proposed(changes) if reviewed else changes)
            self._metrics.count(EXTRACTION_RUNS, outcome="done")
            return done

        return optimistic(
            apply_once,
            attempts=_APPLY_ATTEMPTS,
            exhausted=lambda: DomainError(
                "the review's records kept changing under it; it will be retried"
            ),
            retry_on=(),
        )

    def fail(self, job: ExtractionJob, error: str) -> Extraction | None:
        """Record on the turn that its review failed for good (after its retries); the review as
        it now stands, None when the turn is gone."""
        found = self._store.get_turn(job.tenant, job.agent_id, job.session_id, job.turn_id)
        if found is None or found.extraction is None or not job.is_for(found):
            return None
        turn, state = found, found.extraction
        if state.status is ExtractionStatus.DONE:
            return state
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
            return _state(self._turn(job))
        logger.warning(
            "extraction failed",
            extra={"turn_id": turn.id, "session_id": turn.session_id, "error": failed.error},
        )
        self._metrics.count(EXTRACTION_FAILURES)
        return failed

    def run(self, job: ExtractionJob) -> Extraction | None:
        """Every step in a row (the embedded worker; the state machine runs them as tasks): the
        review as it ends, None when the turn or its review is gone. Exceptions propagate: the
        caller retries, then calls `fail`."""

        def review_once() -> Extraction | None:
            if self.begin(job):
                turn = self._store.get_turn(job.tenant, job.agent_id, job.session_id, job.turn_id)
                return turn.extraction if turn else None
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
        sequence it covers (extraction_window.read_window, within WINDOW_MESSAGES and
        MAX_READ_TURNS)."""
        return read_window(self._store, turn, state, WINDOW_MESSAGES, MAX_READ_TURNS)

    def neighbours(self, turn: Turn, candidates: Sequence[Candidate]) -> dict[int, list[Existing]]:
        """Each candidate's most similar active memories among those the review may change."""
        memory = self._manifests.memory(turn)
        found, usage = find_neighbours(self._records, memory, turn, candidates)
        self._record_usage(turn, usage)
        return found

    def _embed(self, turn: Turn) -> Embed | None:
        """Summaries to vectors with the embedder search uses (usage on the turn), or None
        when nothing embeds (the comparison is by words alone)."""
        embedder = self._records.search.embedder
        if embedder is None:
            return None

        def embed(texts: list[str]) -> Sequence[Sequence[float]]:
            embedding = embedder.embed(texts)
            self._record_usage(
                turn, [UsageEntry("embed", embedding.model_id, embedding.input_tokens)]
            )
            return [list(map(float, row)) for row in embedding.vectors]

        return embed

    def _checked(
        self, turn: Turn, proposal: Proposal, decision: Decisions
    ) -> tuple[list[Candidate], list[ValidDecision], list[Dropped]]:
        """The proposal's candidates, the decisions safe to apply, and those dropped (each
        with its reason)."""
        memory = self._manifests.memory(turn)
        candidates = list(proposal.candidates)
        decisions = list(decision.decisions)
        # Replace and delete may name only the records shown as neighbours: those the review
        # may change. Any other id is dropped as unknown.
        valid, dropped = validate(
            decisions,
            candidates,
            decision.shown,
            memory.kinds,
            memory.labels,
            memory.scope.write,
            memory.secrets,
        )
        valid = corrections_keep_scope(self._store, turn, valid, memory.scope.write)
        valid, too_large = within_one_write(self._store, turn, valid)
        return candidates, valid, dropped + too_large

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


def _size(candidates: Sequence[Candidate]) -> int:
    """The candidates' bytes as the state machine carries them."""
    return len(json.dumps([c.model_dump(mode="json") for c in candidates]))
