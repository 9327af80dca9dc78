"""Ports: the typed interfaces the services depend on. Adapters live in agent_memory.adapters.

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime

from .agents.named_manifests import NamedManifestStore
from .audit.models import AuditEntry
from .extraction.job import ExtractionJob
from .files.models import FileMemory, FileVersion, FileWrite, PreviewFile, TenantLimits
from .history.keys import EventKeys
from .history.models import HistoryEvent
from .kernel.errors import Conflict
from .kernel.events import Event
from .kernel.models import (
    Agent,
    Extraction,
    ExtractionStatus,
    ManifestVersion,
    Session,
    Turn,
    TurnStatus,
)
from .records.models import Execution, Record, RecordQuery, RecordVersion, RecordWrite
from .search.index import IndexDoc
from .sessions.effects import Effect
from .usage.models import Usage, UsageTotal


class PreconditionFailed(Conflict):
    """A conditional write lost a race; the service decides whether to retry or report it."""

    code = "precondition_failed"


class AgentStore(ABC):
    """Agents and their manifest versions. Every save is a new version, written atomically."""

    @abstractmethod
    def create_agent(self, agent: Agent, version: ManifestVersion) -> None:
        """Store a new agent with its first manifest version; PreconditionFailed if it exists."""

    @abstractmethod
    def save_manifest(self, agent: Agent, version: ManifestVersion, expected_version: int) -> None:
        """Store a new head and version while the head is still at expected_version."""

    @abstractmethod
    def get_agent(self, tenant: str, agent_id: str) -> Agent | None:
        """The agent, or None when it does not exist or is being deleted."""

    @abstractmethod
    def list_agents(self, tenant: str, limit: int, after: str | None) -> list[Agent]:
        """Up to `limit` agents of a tenant ordered by id, only those after `after`."""

    @abstractmethod
    def agent_ids(self, tenant: str, limit: int) -> list[str]:
        """Up to `limit` ids of the tenant's agents, counting those whose delete was started
        and not finished (which list_agents leaves out): what a tenant reset still has to do."""

    @abstractmethod
    def list_manifest_versions(
        self, tenant: str, agent_id: str, limit: int, before: int | None
    ) -> list[ManifestVersion]:
        """Versions newest first, only those below `before` when given."""

    @abstractmethod
    def get_manifest_version(
        self, tenant: str, agent_id: str, version: int
    ) -> ManifestVersion | None: ...

    @abstractmethod
    def delete_agent(self, tenant: str, agent_id: str) -> bool:
        """Delete the agent and everything it owns; False when there was no agent.

        Safe to call again after a crash: an interrupted delete is finished by the next call.
        """


@dataclass(frozen=True)
class TurnWrites:
    """What a commit applies with its turn's end: record writes, file writes (the agent may
    hold at most `max_files` memories after them) and search documents (history), which only a
    store holding its own index writes (the cloud indexes from the table's stream)."""

    records: Sequence[RecordWrite] = ()
    files: Sequence[FileWrite] = ()
    max_files: int = 10_000
    index_docs: Sequence[IndexDoc] = ()
    # How many effects the turn had staged when the commit read them: the turn ends only while
    # it holds exactly these (PreconditionFailed when a tool call staged another meanwhile).
    effects: int | None = None


NO_WRITES = TurnWrites()


class SessionStore(ABC):
    """Sessions of an agent and their turns."""

    @abstractmethod
    def create_session(self, session: Session) -> None:
        """PreconditionFailed if the session exists; NotFound if the agent does not."""

    @abstractmethod
    def get_session(self, tenant: str, agent_id: str, session_id: str) -> Session | None: ...

    @abstractmethod
    def list_sessions(
        self, tenant: str, agent_id: str, limit: int, after: str | None
    ) -> list[Session]:
        """Sessions ordered by id (ids sort by creation time), only those after `after`."""

    @abstractmethod
    def begin_turn(self, turn: Turn) -> None:
        """Store the turn and move the session's last sequence to turn.sequence, both or neither.

        PreconditionFailed unless the session's last sequence is turn.sequence - 1, so
        sequences stay gap-free under concurrent begins.
        """

    @abstractmethod
    def get_turn(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> Turn | None: ...

    @abstractmethod
    def list_turns(self, tenant: str, agent_id: str, session_id: str) -> list[Turn]:
        """Every turn of the session, in sequence order."""

    @abstractmethod
    def end_turn(
        self,
        turn: Turn,
        status: TurnStatus,
        ended_at: datetime,
        writes: TurnWrites = NO_WRITES,
    ) -> Turn:
        """Move an open turn to committed or rolled back and apply `writes` with it: all or
        none. The turn's `extraction` (a queued review) and, on a commit, its `memory_updates`
        (what each call changed) are kept with it.

        PreconditionFailed if the turn is not open or any expected version does not hold;
        LimitExceeded if the file writes would take the agent past max_files memories.
        """


class TurnLog(ABC):
    """What a turn did: the native tool calls it made and the writes it staged."""

    @abstractmethod
    def add_execution(
        self, tenant: str, agent_id: str, session_id: str, execution: Execution
    ) -> None:
        """Record one tool call on its turn."""

    @abstractmethod
    def list_executions(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[Execution]:
        """The turn's executions in the order they were made."""

    @abstractmethod
    def stage_effect(self, tenant: str, agent_id: str, session_id: str, effect: Effect) -> None:
        """Keep a write until the turn ends. PreconditionFailed if the turn already staged an
        effect with this effect_id or this sequence."""

    @abstractmethod
    def staged_effects(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[Effect]:
        """The turn's staged writes in sequence order."""


class HistoryStore(ABC):
    """Events of a session's turns, as history keeps them."""

    @abstractmethod
    def append_events(
        self, tenant: str, agent_id: str, session_id: str, events: Sequence[HistoryEvent]
    ) -> bool:
        """Keep events of an open turn. An event whose id is kept already is left as it is
        (appends are idempotent); PreconditionFailed if the turn does not exist. True when this
        call wrote every event as given (no id of them was kept before, none given twice), so
        what their ids hold is known without reading it back; False when it may not have."""

    @abstractmethod
    def turn_events(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[HistoryEvent]:
        """One turn's events in sequence order."""

    @abstractmethod
    def get_events(
        self, tenant: str, agent_id: str, session_id: str, ids: Sequence[str]
    ) -> list[HistoryEvent]: ...

    @abstractmethod
    def session_events(
        self,
        tenant: str,
        agent_id: str,
        session_id: str,
        limit: int,
        after: tuple[int, int] | None,
        from_turn: int | None = None,
        to_turn: int | None = None,
    ) -> list[HistoryEvent]:
        """Events of every turn in (turn, sequence) order after `after`, within the turn range."""


class UsageStore(ABC):
    """Model calls, per turn and per agent."""

    @abstractmethod
    def add_usage(self, tenant: str, agent_id: str, entries: Sequence[Usage]) -> None:
        """Keep the entries and add them to the agent's totals."""

    @abstractmethod
    def list_usage(
        self, tenant: str, agent_id: str, turn_id: str | None, limit: int, before: str | None
    ) -> list[Usage]:
        """Entries newest first (one turn's, or the agent's), ids below `before`."""

    @abstractmethod
    def usage_totals(self, tenant: str, agent_id: str) -> list[UsageTotal]:
        """Calls and tokens by purpose and model, over the agent's life."""


class AuditStore(ABC):
    """The audit trail of each tenant, oldest first."""

    @abstractmethod
    def append_audit(self, entry: AuditEntry) -> None:
        """Keep one entry."""

    @abstractmethod
    def list_audit(
        self,
        tenant: str,
        after: str | None,
        limit: int,
        agent_id: str | None,
        actor: str | None,
        now: datetime,
    ) -> list[AuditEntry]:
        """Entries with ids above `after`, oldest first, of one agent and/or actor when given;
        none whose expiry has passed at `now`."""


class RecordStore(ABC):
    """Memory records of an agent: a head per record and every version of it."""

    @abstractmethod
    def get_records(self, tenant: str, agent_id: str, ids: Iterable[str]) -> list[Record]:
        """The heads of the records with these ids that exist, whatever their status."""

    @abstractmethod
    def find_records(
        self, tenant: str, agent_id: str, query: RecordQuery, limit: int, before: str | None
    ) -> list[Record]:
        """Up to `limit` records matching `query`, newest (highest id) first, ids below `before`."""

    @abstractmethod
    def record_versions(
        self, tenant: str, agent_id: str, record_id: str, limit: int, before: int | None
    ) -> list[RecordVersion]:
        """Versions of one record, newest first, only those below `before` when given."""

    @abstractmethod
    def write_records(self, tenant: str, agent_id: str, writes: Sequence[RecordWrite]) -> None:
        """Apply writes outside any turn (an app's change): all or none, each only while its
        expected version holds (PreconditionFailed otherwise)."""


class FileStore(ABC):
    """File memories of an agent: heads by path, and every version."""

    @abstractmethod
    def get_file(self, tenant: str, agent_id: str, path: str) -> FileMemory | None: ...

    @abstractmethod
    def list_files(
        self,
        tenant: str,
        agent_id: str,
        prefix: str,
        limit: int,
        after: str | None,
        *,
        with_content: bool = False,
    ) -> list[FileMemory]:
        """Memories whose path starts with `prefix`, in path order after `after`, at most
        `limit`. Without `with_content`, adapters may leave `content` empty (listings never show
        it, and it is up to 100 KiB a memory); with it, each memory's content is read in the
        same request (a fork copies them all without a read per memory)."""

    @abstractmethod
    def file_versions(
        self, tenant: str, agent_id: str, path: str | None, limit: int, before: str | None
    ) -> list[FileVersion]:
        """Versions newest first (one path's, or every path's), ids below `before`."""

    @abstractmethod
    def get_file_version(
        self, tenant: str, agent_id: str, version_id: str
    ) -> FileVersion | None: ...

    @abstractmethod
    def count_files(self, tenant: str, agent_id: str) -> int: ...

    @abstractmethod
    def write_files(
        self, tenant: str, agent_id: str, writes: Sequence[FileWrite], max_files: int
    ) -> None:
        """Apply writes outside any turn (an app's change): all or none. PreconditionFailed when
        an expected version does not hold; LimitExceeded when the count would pass max_files."""

    @abstractmethod
    def save_session_index(
        self, tenant: str, agent_id: str, session_id: str, text: str, built_at: datetime
    ) -> None:
        """Keep the memory index a session opened with (until a compaction refreshes it)."""

    @abstractmethod
    def session_index(self, tenant: str, agent_id: str, session_id: str) -> str | None: ...

    @abstractmethod
    def preview_files(self, tenant: str, agent_id: str) -> list[PreviewFile]:
        """Every change preview turns made to the agent's memories (kept by FileWrite.preview
        in a commit), one per path, the latest."""

    @abstractmethod
    def tenant_limits(self, tenant: str) -> TenantLimits | None:
        """The limits the tenant's admin set, None when never set."""

    @abstractmethod
    def save_tenant_limits(self, tenant: str, limits: TenantLimits) -> None:
        """Keep the tenant's limits whole (a None field: the deployment's default)."""


class LimitExceeded(Conflict):
    code = "limit_exceeded"


class EventPublisher(ABC):
    """Where memory events go: an in-process bus served as SSE, or EventBridge."""

    @abstractmethod
    def publish(self, events: Sequence[Event]) -> None:
        """Deliver events after the change they describe has committed. Never raises for a
        delivery failure: the change is already durable, so a lost event is logged, not fatal."""


class ExtractionStore(ABC):
    """Each committed turn's post-turn review, and how far each session has been reviewed."""

    @abstractmethod
    def update_extraction(
        self, turn: Turn, extraction: Extraction, expect: Collection[ExtractionStatus]
    ) -> None:
        """Set the turn's review while its status is one of `expect`; PreconditionFailed
        otherwise (another run finished it, or the turn has none)."""

    @abstractmethod
    def finish_extraction(
        self,
        turn: Turn,
        extraction: Extraction,
        writes: Sequence[RecordWrite],
        read: Sequence[str] = (),
        keys: Sequence[EventKeys] = (),
        index_docs: Sequence[IndexDoc] = (),
    ) -> None:
        """Apply the review's record writes, mark it done, flag the turns it `read` (ids of the
        session's turns) reviewed, and move the session's reviewed_through up to
        extraction.through: all or none. PreconditionFailed if the review is done already (a
        re-run applies nothing), a turn it read was reviewed by another review meanwhile, or a
        record changed meanwhile.

        `keys`: the facts the review proposed from each event of the turns it read (each one of
        a turn in `read`), which replace any the event had; `index_docs` their key documents,
        written by a store holding its own index (the cloud indexes them from the stream)."""

    @abstractmethod
    def event_keys(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[EventKeys]:
        """The fact keys of the turn's events, as the last review that read it left them."""


class ExtractionStarter(ABC):
    """Starts a committed turn's review: the embedded worker's queue, or a Step Functions
    execution named after the turn (a duplicate start is a no-op)."""

    @abstractmethod
    def start(self, job: ExtractionJob) -> None: ...


class Store(
    NamedManifestStore,
    AgentStore,
    SessionStore,
    TurnLog,
    RecordStore,
    FileStore,
    UsageStore,
    HistoryStore,
    ExtractionStore,
    AuditStore,
    ABC,
):
    """Everything the foundation keeps, behind one object per adapter."""

    def close(self) -> None:  # noqa: B027 - optional hook, most adapters hold nothing to close
        """Release connections."""

    def batched(self) -> AbstractContextManager[None]:
        """Many small writes as one unit of the store's own work, where that is cheaper: each
        write inside still succeeds or fails on its own, and all of them are durable and
        visible to others only once the block ends (SQLite: one transaction, each write a
        savepoint in it). Adapters whose writes cannot be grouped (DynamoDB) write as usual."""
        return nullcontext()

    def exclusive(self) -> AbstractContextManager[None]:
        """Hold off this process's other writers while a read-then-write attempt runs, where
        the store serialises its writers (SQLite: its writer lock, re-entrant), so the attempt
        never loses to one of them; elsewhere nothing (DynamoDB's conditional writes decide)."""
        return nullcontext()
