"""Event-driven ingestion: the appends and commits a harness would make over HTTP, as messages
(an SQS queue in the cloud, a JSON Lines file embedded). Applying a message twice changes
nothing the second time."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from ..history import AppendIn, EventIn, HistoryService
from ..kernel.deferred import DeferredModel
from ..kernel.errors import Conflict, DomainError, InvalidRequest, NotFound, problems_text
from ..kernel.models import AGENT_SESSION, StartedBy
from ..kernel.where import TurnRef
from .answers import Applied, IngestResult
from .service import SessionService


class _Message(DeferredModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str
    session: str
    turn: str


class Begin(_Message):
    op: Literal["begin"]
    started_by: StartedBy = "app"
    trigger_run_id: str | None = None
    preview: bool = False


class Append(_Message):
    """Each event names its sequence: what makes a message delivered twice keep it once."""

    op: Literal["events"]
    events: list[EventIn] = Field(min_length=1, max_length=500)

    @field_validator("events")
    @classmethod
    def _sequenced(cls, events: list[EventIn]) -> list[EventIn]:
        if any(e.sequence is None for e in events):
            raise ValueError("every event of an ingested message needs its sequence")
        return events


class Commit(_Message):
    op: Literal["commit"]


class Rollback(_Message):
    op: Literal["rollback"]


class OpenSession(DeferredModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    op: Literal["session"]
    agent: str
    session: str


Message = Annotated[Begin | Append | Commit | Rollback | OpenSession, Field(discriminator="op")]


@cache
def _messages() -> TypeAdapter[Any]:
    # Made on first use, as the models are (domain/kernel/deferred.py): only the ingest route reads it.
    return TypeAdapter(Message)


def parse_message(raw: Any) -> Any:
    try:
        return _messages().validate_python(raw)
    except ValidationError as exc:
        problems = problems_text(exc.errors(include_url=False))
        raise InvalidRequest(f"invalid message: {problems}", code="invalid_message") from exc


class IngestService:
    def __init__(self, sessions: SessionService, history: HistoryService) -> None:
        self._sessions = sessions
        self._history = history

    def apply(self, tenant: str, raw: Any) -> Applied:
        """Apply one message; returns `applied` or `already applied`."""
        return self._apply(tenant, _parsed(raw))

    def apply_batch(self, tenant: str, messages: list[Any]) -> list[IngestResult]:
        """Apply messages in order, each on its own: one failing (a 4xx it would have been
        alone) is reported in its place and the others go on. Each result is `{"status":
        "applied" | "already applied" | "failed", "error"?: {"code", "message"}}`."""
        # Every message is validated before the batch takes the store's write lock: the
        # embedded server's writes queue behind that lock, so what needs no store is done
        # outside it, beside another batch's writes (benchmarks/RESULTS.md, ingest).
        prepared: list[_Prepared | DomainError] = []
        for raw in messages:
            try:
                prepared.append(_parsed(raw))
            except DomainError as exc:
                prepared.append(exc)
        outcomes: list[Applied | DomainError] = []
        # One store transaction for the batch (SQLite: each message's writes a savepoint in
        # it): 2.6 times the events a second of one transaction a write (benchmarks/RESULTS.md).
        # If it fails, nothing of it stays and the batch is sent again.
        with self._sessions.batched():
            for item in prepared:
                if isinstance(item, DomainError):
                    outcomes.append(item)
                    continue
                try:
                    outcomes.append(self._apply(tenant, item))
                except DomainError as exc:
                    if exc.status >= 500:
                        raise  # the service failing is no message's fault: sent again
                    outcomes.append(exc)
        return [
            IngestResult(status="failed", error=o.to_body()["error"])
            if isinstance(o, DomainError)
            else IngestResult(status=o)
            for o in outcomes
        ]

    def _apply(self, tenant: str, prepared: _Prepared) -> Applied:
        message, events = prepared
        if message.session == AGENT_SESSION:
            # The agent's own turns are run through their routes, which check its manifest.
            raise NotFound(f"session {AGENT_SESSION!r} does not exist", code="session_not_found")
        try:
            if isinstance(message, OpenSession):
                self._sessions.create(tenant, message.agent, message.session, {})
            elif isinstance(message, Begin):
                self._begin(tenant, message)
            elif isinstance(message, Append):
                assert events is not None
                self._history.append(_turn_of(tenant, message), events)
            elif isinstance(message, Commit):
                self._sessions.commit(_turn_of(tenant, message))
            else:
                self._sessions.rollback(_turn_of(tenant, message))
        except Conflict as exc:
            if _already_applied(message, exc):
                return "already applied"
            raise
        return "applied"

    def _begin(self, tenant: str, message: Begin) -> None:
        # Most turns begin in a session that is there: try that first (it reads the session),
        # and open the session only when the begin says it is missing.
        try:
            self._begin_turn(tenant, message)
            return
        except NotFound as exc:
            if exc.code != "session_not_found":
                raise
        try:  # a turn's first message may open its session
            self._sessions.create(tenant, message.agent, message.session, {})
        except Conflict as race:
            if race.code != "session_exists":
                raise
        self._begin_turn(tenant, message)

    def _begin_turn(self, tenant: str, message: Begin) -> None:
        self._sessions.begin_turn(
            tenant,
            message.agent,
            message.session,
            preview=message.preview,
            started_by=message.started_by,
            trigger_run_id=message.trigger_run_id,
            turn_id=message.turn,
        )


# A message as validated, with an append's events as the history service takes them.
_Prepared = tuple[Any, AppendIn | None]


def _parsed(raw: Any) -> _Prepared:
    """The message `raw` is, validated (a 400 invalid_message or invalid_events if it is not)."""
    message = parse_message(raw)
    if isinstance(message, Append):
        return message, AppendIn.parse(_events_body(message))
    return message, None


def _turn_of(tenant: str, message: _Message) -> TurnRef:
    return TurnRef(tenant, message.agent, message.session, message.turn)


def _already_applied(message: Any, exc: Conflict) -> bool:
    if isinstance(message, OpenSession):
        return exc.code == "session_exists"
    if isinstance(message, Begin):
        return exc.code == "turn_exists"
    if isinstance(message, Append):
        # Appends come before their turn's commit: one after it was delivered before (its
        # events are kept), or comes too late, and then it fails (to the dead-letter queue).
        return exc.code == "turn_closed" and exc.details.get("alreadyKept") is True
    done = {Commit: "committed", Rollback: "rolled_back"}.get(type(message))
    return exc.code == "turn_closed" and exc.details.get("status") == done


def _events_body(message: Append) -> dict[str, Any]:
    return {"events": [e.model_dump(mode="json", exclude_none=True) for e in message.events]}
