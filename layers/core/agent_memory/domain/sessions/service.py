"""Sessions and turns: begin with a gap-free sequence, then commit or roll back exactly once."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import astuple
from functools import partial
from typing import TYPE_CHECKING

from ..agents import AgentService
from ..extraction import ExtractionJob, ExtractionService, ExtractionStarter
from ..files import FileService
from ..history import HistoryService
from ..kernel.auth import Principal
from ..kernel.errors import Conflict, InvalidRequest, LimitExceeded, NotFound, PreconditionFailed
from ..kernel.events import EventPublisher, turn_updated, updates_by_call
from ..kernel.ids import new_id, validate_opaque_id
from ..kernel.metrics import NO_METRICS, TURN_COMMITS, Metrics
from ..kernel.models import (
    AGENT_SESSION,
    Agent,
    Extraction,
    Page,
    Session,
    StartedBy,
    Turn,
    TurnStatus,
    utcnow,
)
from ..kernel.paging import check_limit, decode_cursor, int_field, page, str_field
from ..kernel.retry import optimistic
from ..kernel.where import SessionRef, TurnRef
from ..records import RecordService
from ..turns import turn_closed
from .agent_turns import check_sessionless, ensure_agent_session
from .ports import TurnWrites

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)

# Concurrent begins on one session race on the sequence counter; each loser re-reads and retries.
_BEGIN_ATTEMPTS = 50


class SessionService:
    """Sessions of an agent, and the turns that run in them."""

    def __init__(
        self,
        store: Store,
        agents: AgentService,
        records: RecordService,
        files: FileService,
        events: EventPublisher,
        history: HistoryService,
        extraction: ExtractionService | None = None,
        starter: ExtractionStarter | None = None,
        metrics: Metrics = NO_METRICS,
    ) -> None:
        self._history = history
        self._metrics = metrics
        self._extraction = extraction
        self._starter = starter
        self._store = store
        self._agents = agents
        self._records = records
        self._files = files
        self._events = events
        # What a commit does once it is committed (publish, start its review), held back on
        # this thread while a batch of writes is still one open transaction (`batched`).
        self._held = threading.local()

    @contextmanager
    def batched(self) -> Iterator[None]:
        """Run many messages' writes as one store transaction (where the store can), each
        still succeeding or failing on its own. What their commits would announce (events,
        reviews to start) waits until the batch is committed, so nobody hears of a change
        they cannot read yet; a batch that fails announces nothing."""
        if getattr(self._held, "actions", None) is not None:
            yield  # already batching on this thread
            return
        actions: list[Callable[[], None]] = []
        self._held.actions = actions
        try:
            with self._store.batched():
                yield
        finally:
            self._held.actions = None
        for action in actions:
            action()

    def _after_commit(self, action: Callable[[], None]) -> None:
        held = getattr(self._held, "actions", None)
        if held is not None:
            held.append(action)
        else:
            action()

    def create(
        self,
        tenant: str,
        agent_id: str,
        session_id: str | None,
        metadata: dict[str, str],
        owner: str | None = None,
    ) -> Session:
        self._agents.get(tenant, agent_id)
        if session_id is not None:
            validate_opaque_id(session_id, "session")
        session = Session(
            tenant=tenant,
            agent_id=agent_id,
            id=session_id or new_id("ses"),
            metadata=metadata,
            created_at=utcnow(),
            owner=owner,
        )
        try:
            self._store.create_session(session)
        except PreconditionFailed as exc:
            raise Conflict(f"session {session.id!r} already exists", code="session_exists") from exc
        return session

    def reach(
        self, who: Principal, agent_id: str, session_id: str, *, write: bool = False
    ) -> Session:
        """The session, when `who` may read it (or, with `write`, run turns in it); another
        subject's session is a 404 to a `sessions:own` caller (Principal.reach). The agent's
        reserved session of sessionless turns is no session a caller names."""
        if session_id == AGENT_SESSION:
            raise NotFound(f"session {session_id!r} does not exist", code="session_not_found")
        if write:
            who.can_run_sessions()
        else:
            who.can_read()
        return who.reach(self.get(SessionRef(who.tenant, agent_id, session_id)), write=write)

    def agent(self, tenant: str, agent_id: str) -> None:
        """404 unless the agent exists."""
        self._agents.get(tenant, agent_id)

    def agent_of(self, tenant: str, agent_id: str) -> Agent:
        """The agent (404 unless it exists)."""
        return self._agents.get(tenant, agent_id)

    def get(self, where: SessionRef) -> Session:
        self._agents.get(where.tenant, where.agent_id)
        session = self._store.get_session(where.tenant, where.agent_id, where.session_id)
        if session is None:
            raise NotFound(f"session {where.session_id!r} does not exist", code="session_not_found")
        return session

    def list_sessions(
        self, tenant: str, agent_id: str, limit: int | None, cursor: str | None
    ) -> Page[Session]:
        self._agents.get(tenant, agent_id)
        size = check_limit(limit)
        after = str_field(decode_cursor(cursor), "after")
        # One more, in case the reserved session of sessionless turns is among them.
        found = self._store.list_sessions(tenant, agent_id, size + 2, after)
        sessions = [s for s in found if s.id != AGENT_SESSION][: size + 1]
        return page(sessions, size, lambda last: {"after": last.id})

    def list_turns(self, where: SessionRef, limit: int | None, cursor: str | None) -> Page[Turn]:
        """The session's turns in order, a page at a time (any status: committed, rolled back,
        open, preview)."""
        self.get(where)
        size = check_limit(limit)
        after = int_field(decode_cursor(cursor), "after") or 0
        stored = self._store.list_turns(where.tenant, where.agent_id, where.session_id)
        turns = sorted(
            (t for t in stored if t.sequence > after),
            key=lambda t: t.sequence,
        )
        return page(turns[: size + 1], size, lambda last: {"after": last.sequence})

    def begin_turn(
        self,
        tenant: str,
        agent_id: str,
        session_id: str | None,
        *,
        preview: bool = False,
        replay_of: str | None = None,
        started_by: StartedBy = "app",
        trigger_run_id: str | None = None,
        turn_id: str | None = None,
    ) -> Turn:
        """Begin the session's next turn, running the agent's current manifest version.

        A caller may choose the turn's id (event-driven ingestion refers to turns it has not
        seen begin); an id already taken is a 409 turn_exists carrying that turn. Without a
        session, a turn of the agent itself (a trigger's, a wake's): only for an agent whose
        manifest reads and writes agent scope alone (agent_turns).
        """
        agent = self._agents.get(tenant, agent_id)
        if session_id is None:
            check_sessionless(agent)
            ensure_agent_session(self._store, agent)
        where = SessionRef(tenant, agent_id, AGENT_SESSION if session_id is None else session_id)
        if turn_id is not None:
            validate_opaque_id(turn_id, "turn")
        if replay_of is not None:
            self._check_replay_of(where, replay_of)

        def begin_once() -> Turn:
            session = self.get(where)
            if turn_id is not None:
                self._refuse_taken(where.turn(turn_id))
            turn = Turn(
                tenant=tenant,
                agent_id=agent_id,
                session_id=where.session_id,
                id=turn_id or new_id("trn"),
                sequence=session.last_sequence + 1,
                preview=preview,
                replay_of=replay_of,
                started_by=started_by,
                trigger_run_id=trigger_run_id,
                manifest_version=agent.manifest_version,
                created_at=utcnow(),
            )
            self._store.begin_turn(turn)  # lost the sequence to another begin: count again
            return turn

        return optimistic(
            begin_once,
            attempts=_BEGIN_ATTEMPTS,
            hold=self._store.exclusive,
            exhausted=lambda: Conflict(
                "too many turns began at once on this session; try again", code="session_busy"
            ),
        )

    def _check_replay_of(self, where: SessionRef, replay_of: str) -> None:
        """A replay names an earlier turn of the same session (a missing session is a 404
        first)."""
        self.get(where)
        if self._turn(where.turn(replay_of)) is None:
            raise InvalidRequest(
                f"replay_of names turn {replay_of!r}, which is not a turn of this session",
                code="invalid_replay_of",
            )

    def _turn(self, where: TurnRef) -> Turn | None:
        return self._store.get_turn(where.tenant, where.agent_id, where.session_id, where.turn_id)

    def _refuse_taken(self, where: TurnRef) -> None:
        """A chosen turn id already taken is a 409 carrying that turn."""
        taken = self._turn(where)
        if taken is not None:
            raise Conflict(
                f"turn {where.turn_id!r} exists",
                code="turn_exists",
                turn=taken.model_dump(mode="json", by_alias=True),
            )

    def get_turn(self, where: TurnRef) -> Turn:
        self.get(where)
        turn = self._turn(where)
        if turn is None:
            raise NotFound(f"turn {where.turn_id!r} does not exist", code="turn_not_found")
        return turn

    def commit(self, where: TurnRef) -> Turn:
        """Apply every write the turn staged, all at once, with the turn's move to committed.

        A write that lost a race with another turn (its record changed meanwhile) is worked out
        again against the new state; the turn commits exactly once.
        """
        ended, reviewed = optimistic(
            partial(self._commit_once, where),
            attempts=_BEGIN_ATTEMPTS,
            hold=self._store.exclusive,
            exhausted=lambda: Conflict(
                "the turn's writes kept conflicting with other turns; commit again",
                code="turn_busy",
            ),
        )
        # Committed: what follows must not turn the answer into an error.
        if ended.memory_updates:
            self._after_commit(partial(self._events.publish, turn_updated(ended)))
        if reviewed:
            self._after_commit(partial(self._start_extraction, ended))
        self._after_commit(partial(self._metrics.count, TURN_COMMITS))
        return ended

    def _commit_once(self, where: TurnRef) -> tuple[Turn, bool]:
        """One try at the commit: the ended turn (with what each of its calls changed, kept
        with it), whether a review is queued.
        A write that lost a race raises PreconditionFailed (worked out again from a fresh read)."""
        turn = self.open_turn(where)
        # Read once, before the writes are worked out: one staged after is caught at the end.
        staged = self._store.staged_effects(*astuple(where))
        writes, changes = self._records.writes_for_commit(turn, staged)
        file_writes, file_changes = self._files.writes_for_commit(turn, staged)
        history_docs = self._history.docs_for_commit(turn)
        review = self._plan_review(turn)
        try:
            ended = self._store.end_turn(
                turn.model_copy(
                    update={
                        "extraction": review,
                        "memory_updates": updates_by_call(changes + file_changes),
                    }
                ),
                TurnStatus.COMMITTED,
                utcnow(),
                TurnWrites(
                    writes,
                    file_writes,
                    self._files.limits_for(where.tenant).memories_per_agent,
                    history_docs,
                    len(staged),
                ),
            )
        except LimitExceeded as exc:
            raise Conflict(
                f"the turn's memory changes would pass the limit: {exc.message}",
                code="limit_exceeded",
            ) from exc
        return ended, review is not None

    def rollback(self, where: TurnRef) -> Turn:
        """End the turn; nothing it staged is ever applied."""
        turn = self.open_turn(where)
        try:
            return self._store.end_turn(turn, TurnStatus.ROLLED_BACK, utcnow())
        except PreconditionFailed as exc:
            raise turn_closed(self.get_turn(where)) from exc

    def rerun_extraction(self, where: TurnRef) -> Turn:
        """Queue a committed turn's failed review again and start it."""
        turn = self.get_turn(where)
        if self._extraction is None:
            raise Conflict("post-turn extraction is off on this server", code="extraction_off")
        queued = self._extraction.rerun(turn)
        rerun = turn.model_copy(update={"extraction": queued})
        self._start_extraction(rerun)
        return self.get_turn(where)

    def _plan_review(self, turn: Turn) -> Extraction | None:
        """The review this commit queues. Counting what it should read never fails the commit:
        if that fails, the review is queued anyway and finds its window when it runs."""
        if self._extraction is None:
            return None
        try:
            return self._extraction.plan(turn)
        except Exception:  # noqa: BLE001 - the commit matters more than the count
            logger.exception(
                "extraction planning failed; queued anyway", extra={"turn_id": turn.id}
            )
            return self._extraction.unplanned(turn)

    def _start_extraction(self, turn: Turn) -> None:
        """Hand the committed turn's review to the worker or the state machine. The turn is
        committed whatever happens here: a review that cannot start is recorded as failed."""
        if self._extraction is None or self._starter is None:
            return
        job = ExtractionJob.of(turn)
        try:
            self._starter.start(job)
        except Exception as exc:  # noqa: BLE001 - never fail the committed turn
            logger.exception("extraction could not start", extra={"turn_id": turn.id})
            try:
                self._extraction.fail(job, f"could not start: {exc}")
            except Exception:  # noqa: BLE001
                logger.exception("extraction failure not recorded", extra={"turn_id": turn.id})

    def open_turn(self, where: TurnRef) -> Turn:
        """The turn, which must still be open: a committed or rolled-back turn cannot change."""
        turn = self.get_turn(where)
        if turn.status is not TurnStatus.OPEN:
            raise turn_closed(turn)
        return turn
