"""What a tool call needs to know about its turn: the turn, its manifest, and who is calling."""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field, ValidationError

from ..kernel.deferred import DeferredModel
from ..kernel.errors import Conflict, DomainError, InvalidRequest
from ..kernel.models import Turn, TurnStatus
from ..kernel.records import Provenance
from ..kernel.restore import on_restore
from ..manifests import Manifest, MemoryConfig
from ..usage import UsageEntry
from .effects import Effect

if TYPE_CHECKING:
    from ..store import Store

Role = Literal["agent", "helper", "programmatic", "agent_as_tool"]
# Each caller role as a sentence names it, with its article (the spec's words for them).
ROLE_NAMES: dict[str, str] = {
    "agent": "the session's own agent",
    "helper": "a subagent helper",
    "programmatic": "a programmatic tool caller",
    "agent_as_tool": "an agent used as a tool",
}


class ToolRefused(DomainError):
    """A tool call the agent's configuration does not allow; the message is for the agent."""

    status = 403
    code = "memory.forbidden"


def turn_closed(turn: Turn) -> Conflict:
    """A committed or rolled-back turn changes no more: what every write to one answers."""
    return Conflict(
        f"turn {turn.id!r} is {turn.status.value.replace('_', ' ')} and cannot change",
        code="turn_closed",
        status=turn.status.value,
    )


class Caller(DeferredModel):
    """Who makes a tool call: the session's own agent, or a reader (helper, program, tool)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    execution: str | None = Field(default=None, max_length=256)
    invocation: str | None = Field(default=None, max_length=256)


def parse_caller(raw: Any) -> Caller:
    if raw is None:
        raise InvalidRequest(
            'a tool call needs a caller: {"role": "agent" | "helper" | "programmatic" | '
            '"agent_as_tool"}',
            code="invalid_caller",
        )
    try:
        return Caller.model_validate(raw)
    except ValidationError as exc:
        raise InvalidRequest(
            f"invalid caller: {exc.errors(include_url=False)[0]['msg']}", code="invalid_caller"
        ) from exc


@dataclass(frozen=True)
class TurnContext:
    turn: Turn
    memory: MemoryConfig
    caller: Caller
    root_turn: Turn
    memory_declared: bool = True
    # Model calls made while serving this call (recorded with its execution).
    usage: list[UsageEntry] = field(default_factory=list)
    # The subject whose sessions alone the caller's credential reaches (a sessions:own token):
    # what the agent's search across sessions may read for it. None: every session.
    sessions_of: str | None = None
    # The id the service records this call under (its `exe_` execution): what the records it
    # writes name as their execution and invocation when the caller names none.
    execution_id: str | None = None

    @property
    def tenant(self) -> str:
        return self.turn.tenant

    @property
    def agent_id(self) -> str:
        return self.turn.agent_id

    @property
    def session_id(self) -> str:
        return self.turn.session_id

    @property
    def preview(self) -> bool:
        return self.turn.preview

    def effect_id(self, tool: str) -> str:
        """A replayed turn's call carries its original's execution id, so it gets the same
        effect id and is applied once; a call without an execution id is always new."""
        if self.caller.execution is None:
            return uuid.uuid4().hex
        seed = f"{self.root_turn.id}:{tool}:{self.caller.execution}"
        return hashlib.sha256(seed.encode()).hexdigest()[:32]

    def provenance(self) -> Provenance:
        return Provenance(
            actor=f"agent:{self.agent_id}@{self.turn.manifest_version}",
            execution=self.caller.execution or self.execution_id,
            invocation=self.caller.invocation or self.execution_id,
            manifest_version=self.turn.manifest_version,
            session_id=self.turn.own_session_id,
            turn_id=self.turn.id,
            trigger_run_id=self.turn.trigger_run_id,
        )

    def require_writer(self, what: str) -> None:
        """Only the session's own agent writes, and only with read_write access."""
        if self.caller.role != "agent":
            raise ToolRefused(
                f"{what} is refused: only the agent itself changes memory; "
                f"{ROLE_NAMES.get(self.caller.role, self.caller.role)} may search and read it "
                "but never write it"
            )
        if self.memory.access == "read_only":
            raise ToolRefused(f"{what} is refused: this agent's memory is read_only")


class ManifestCache:
    """Manifest versions never change once saved, so each is read from the store once, with
    one exception: an agent deleted and made again under its id numbers its versions from 1
    again. So an agent's versions are dropped when it is deleted or made in this process, and
    kept at most MAX_AGE seconds (another process, a Lambda container, may have made it)."""

    MAX_AGE = 60.0

    def __init__(self, store: Store, size: int = 1024) -> None:
        self._store = store
        self._size = size
        self._cache: dict[tuple[str, str, int], tuple[float, Manifest]] = {}
        self._lock = threading.Lock()  # request threads and the extraction worker share it
        # Entries are dated by time.monotonic, which a restored snapshot does not carry on.
        on_restore(self.clear)

    def memory(self, turn: Turn) -> MemoryConfig:
        return self.manifest(turn).harness.memory

    def manifest(self, turn: Turn) -> Manifest:
        return self.at_version(turn.tenant, turn.agent_id, turn.manifest_version)

    def at_version(self, tenant: str, agent_id: str, version: int) -> Manifest:
        """The agent's manifest as saved at `version` (an empty one if there is none)."""
        key = (tenant, agent_id, version)
        now = time.monotonic()
        cached = self._cache.get(key)
        if cached is not None and now - cached[0] < self.MAX_AGE:
            return cached[1]
        saved = self._store.get_manifest_version(*key)
        manifest = Manifest.model_validate(saved.manifest if saved else {})
        with self._lock:
            if len(self._cache) >= self._size:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = (now, manifest)
        return manifest

    def clear(self) -> None:
        """Drop every kept version."""
        with self._lock:
            self._cache.clear()

    def forget(self, tenant: str, agent_id: str) -> None:
        """Drop what is kept of an agent's versions (it was deleted, or made anew)."""
        with self._lock:
            for key in [k for k in self._cache if k[:2] == (tenant, agent_id)]:
                del self._cache[key]


def replayed_effects(store: Store, ctx: TurnContext) -> list[Effect]:
    """The writes staged by the committed turns this one replays (its original and earlier
    replays of it): a replayed call finds its original's effect here and applies nothing."""
    if ctx.caller.execution is None or ctx.turn.replay_of is None:
        return []
    found: list[Effect] = []
    turn_id: str | None = ctx.turn.replay_of
    for _ in range(100):  # a bound on the chain, not on its length in practice
        if turn_id is None:
            break
        turn = store.get_turn(ctx.tenant, ctx.agent_id, ctx.session_id, turn_id)
        if turn is None:
            break
        if turn.status is TurnStatus.COMMITTED:
            found += store.staged_effects(ctx.tenant, ctx.agent_id, ctx.session_id, turn.id)
        turn_id = turn.replay_of
    return found


def root_of(store: Store, turn: Turn) -> Turn:
    """The turn a replay chain started from."""
    seen = {turn.id}
    while turn.replay_of is not None:
        original = store.get_turn(turn.tenant, turn.agent_id, turn.session_id, turn.replay_of)
        if original is None or original.id in seen:
            break
        seen.add(original.id)
        turn = original
    return turn
