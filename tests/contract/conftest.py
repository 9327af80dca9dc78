"""Fixtures of the Store contract suite: the same tests run against SqliteStore and DynamoStore."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from index_model import INDEX_DIMENSIONS, INDEX_MODEL
from moto import mock_aws
from moto.core.botocore_stubber import BotocoreStubber

from agent_memory.adapters.dynamodb import DynamoStore
from agent_memory.adapters.opensearch import OpenSearchIndex
from agent_memory.adapters.s3vectors.index import S3VectorsIndex
from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.domain.files.models import (
    FileMemory,
    FileOperation,
    FileVersion,
    FileWrite,
)
from agent_memory.domain.files.plan import file_head
from agent_memory.domain.history.models import HistoryEvent, ToolCall, event_id
from agent_memory.domain.kernel.ids import new_id
from agent_memory.domain.kernel.models import Agent, ManifestVersion, Session, Turn, utcnow
from agent_memory.domain.records.models import (
    Execution,
    Provenance,
    Record,
    RecordOperation,
    RecordStatus,
    RecordVersion,
    RecordWrite,
)
from agent_memory.domain.search.index import SearchIndex
from agent_memory.domain.store import Store
from agent_memory.domain.turns.effects import RecordAdd, RecordAddEffect
from s3vectors_moto import install_query_vectors, s3vectors_index

REGION = "us-east-1"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """moto with fake credentials, each mocked request applied atomically like DynamoDB does.

    moto applies a TransactWriteItems one item at a time and undoes a cancelled one by restoring
    a copy of the table, so two threads inside it at once can lose each other's writes. Real
    DynamoDB serialises transactions; one lock around each mocked request gives the same.
    """
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    lock = threading.Lock()
    process_request = BotocoreStubber.process_request

    def one_at_a_time(self: BotocoreStubber, request: Any) -> Any:
        with lock:
            return process_request(self, request)

    monkeypatch.setattr(BotocoreStubber, "process_request", one_at_a_time)
    with mock_aws():
        yield


@pytest.fixture
def dynamo_store(aws: None) -> DynamoStore:
    store = DynamoStore(table_name="agent-memory-contract", region=REGION)
    store.create_table()
    return store


@pytest.fixture
def s3vectors_search_index(aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[S3VectorsIndex]:
    """A ready S3VectorsIndex under moto (4 dimensions, model `test-model`), QueryVectors answered
    by exact search: see tests/s3vectors_moto.py for what that leaves unverified."""
    install_query_vectors(monkeypatch)
    with s3vectors_index(REGION) as index:
        yield index


def _sqlite(path: Path) -> SqliteStore:
    return SqliteStore(path / "db.sqlite3")


@pytest.fixture(params=["sqlite", "dynamodb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    adapter: Store = (
        _sqlite(tmp_path) if request.param == "sqlite" else request.getfixturevalue("dynamo_store")
    )
    yield adapter
    adapter.close()


class Build:
    """Entities as a service would make them, with every optional field filled in."""

    def __init__(self) -> None:
        self.now = utcnow()

    def agent(
        self, agent_id: str, tenant: str = "acme", manifest: dict[str, Any] | None = None
    ) -> tuple[Agent, ManifestVersion]:
        document = manifest or {"memory": {"enabled": True, "search": {"min_score": 0.25}}}
        agent = Agent(
            tenant=tenant,
            id=agent_id,
            manifest_version=1,
            manifest=document,
            created_at=self.now,
            updated_at=self.now,
            forked_from="templates/base",
        )
        version = ManifestVersion(
            agent_id=agent_id, version=1, manifest=document, created_at=self.now
        )
        return agent, version

    def next_version(self, agent: Agent, manifest: dict[str, Any]) -> tuple[Agent, ManifestVersion]:
        later = agent.updated_at + timedelta(seconds=agent.manifest_version)
        number = agent.manifest_version + 1
        saved = agent.model_copy(
            update={"manifest_version": number, "manifest": manifest, "updated_at": later}
        )
        version = ManifestVersion(
            agent_id=agent.id, version=number, manifest=manifest, created_at=later
        )
        return saved, version

    def session(self, agent: Agent, session_id: str = "ses_1") -> Session:
        return Session(
            tenant=agent.tenant,
            agent_id=agent.id,
            id=session_id,
            metadata={"user": "u-1", "channel": "web"},
            created_at=self.now,
        )

    def turn(self, session: Session, sequence: int, turn_id: str | None = None) -> Turn:
        return Turn(
            tenant=session.tenant,
            agent_id=session.agent_id,
            session_id=session.id,
            id=turn_id or f"trn_{sequence:04d}",
            sequence=sequence,
            preview=True,
            replay_of="trn_0000",
            started_by="trigger",
            trigger_run_id="run-7",
            manifest_version=1,
            created_at=self.now,
        )

    # -- history -------------------------------------------------------------------------------

    def event(
        self, turn: Turn, sequence: int, text: str | None = None, **fields: Any
    ) -> HistoryEvent:
        """An event of `turn` as the history service makes it, with every optional field set."""
        values: dict[str, Any] = {
            "tenant": turn.tenant,
            "agent_id": turn.agent_id,
            "session_id": turn.session_id,
            "turn_id": turn.id,
            "turn_sequence": turn.sequence,
            "id": event_id(turn.session_id, turn.id, sequence),
            "sequence": sequence,
            "role": "assistant",
            "text": f'{turn.id} says {sequence} \u00e9\u4e2d "quoted"\n' if text is None else text,
            "tool_name": "lookup",
            "call_id": f"call-{sequence}",
            "tool_calls": [ToolCall(name="lookup", call_id=f"call-{sequence}")],
            "execution_id": "exe_1",
            "time": self.now + timedelta(seconds=sequence),
            "metadata": {"kind": "reply"},
            "preview": turn.preview,
            **fields,
        }
        return HistoryEvent(**values)

    # -- record memory and the turn log --------------------------------------------------------

    def provenance(self, session_id: str = "ses_1", turn_id: str = "trn_0001") -> Provenance:
        return Provenance(
            actor="agent",
            execution="exe_1",
            invocation="inv-9",
            manifest_version=1,
            session_id=session_id,
            turn_id=turn_id,
            trigger_run_id="run-7",
        )

    def record(
        self,
        record_id: str,
        *,
        tenant: str = "acme",
        agent_id: str = "teams/web",
        session_id: str | None = None,
        **fields: Any,
    ) -> Record:
        """An agent-scope record, or a session-scope one of `session_id` when given."""
        values: dict[str, Any] = {
            "tenant": tenant,
            "agent_id": agent_id,
            "id": record_id,
            "scope": "session" if session_id else "agent",
            "session_id": session_id,
            "summary": f"summary of {record_id}",
            "content": f'content of {record_id} \u00e9\u4e2d "quoted"',
            "kind": "fact",
            "labels": {"topic": "billing"},
            "provenance": self.provenance(session_id or "ses_1"),
            "created_at": self.now,
            "updated_at": self.now,
            **fields,
        }
        return Record(**values)

    def version(
        self, record: Record, operation: RecordOperation = RecordOperation.CREATE
    ) -> RecordVersion:
        return RecordVersion(
            record=record, operation=operation, changed_by=record.provenance, at=record.updated_at
        )

    def create(self, record: Record) -> RecordWrite:
        """The write that stores a new record with its first version."""
        return RecordWrite(record=record, expected_version=None, versions=[self.version(record)])

    def change(
        self,
        record: Record,
        operation: RecordOperation = RecordOperation.DELETE,
        expected_version: int | None = None,
        **changes: Any,
    ) -> RecordWrite:
        """The write that moves `record` to its next version (status DELETED unless told)."""
        status = {
            RecordOperation.DELETE: RecordStatus.DELETED,
            RecordOperation.SUPERSEDE: RecordStatus.SUPERSEDED,
        }.get(operation, record.status)
        later = record.updated_at + timedelta(seconds=record.version)
        changed = record.model_copy(
            update={
                "status": status,
                "version": record.version + 1,
                "updated_at": later,
                **changes,
            }
        )
        expected = record.version if expected_version is None else expected_version
        return RecordWrite(
            record=changed, expected_version=expected, versions=[self.version(changed, operation)]
        )

    def execution(self, execution_id: str, turn_id: str = "trn_0001") -> Execution:
        return Execution(
            id=execution_id,
            turn_id=turn_id,
            tool="search_memory",
            input={"query": "billing", "limit": 5},
            output={"records": [{"id": "rec_1", "score": 0.5}]},
            error=None,
            caller={"invocation": "inv-9", "execution": execution_id},
            retrieved=True,
            created_at=self.now,
        )

    def effect(
        self, effect_id: str, sequence: int, turn_id: str = "trn_0001", record_id: str = "rec_x"
    ) -> RecordAddEffect:
        return RecordAddEffect(
            effect_id=effect_id,
            turn_id=turn_id,
            sequence=sequence,
            payload=RecordAdd(record=self.record(record_id)),
        )

    # -- file memory ---------------------------------------------------------------------------

    def memory(
        self,
        path: str,
        content: str | None = None,
        version: int = 1,
        *,
        tenant: str = "acme",
        agent_id: str = "teams/web",
    ) -> FileMemory:
        """A head as the file service makes it (content with a frontmatter description)."""
        if content is None:
            content = f'---\ndescription: about {path}\n---\nnotes \u00e9\u4e2d "quoted"\n'
        at = self.now + timedelta(seconds=version)
        return file_head(tenant, agent_id, path, content, version, at, "agent:teams/web@1")

    def file_version(
        self,
        head: FileMemory | None,
        operation: FileOperation,
        *,
        path: str | None = None,
        version: int | None = None,
        from_path: str | None = None,
        agent_id: str = "teams/web",
    ) -> FileVersion:
        """The version a change leaves: `head`'s content, or none for a delete (give `path`)."""
        return FileVersion(
            id=new_id("fv"),
            agent_id=agent_id,
            path=head.path if head else str(path),
            operation=operation,
            from_path=from_path,
            actor="agent:teams/web@1",
            session_id="ses_1",
            turn_id="trn_0001",
            trigger_run_id="run-7",
            version=head.version if head else int(version or 0),
            content=head.content if head else None,
            content_sha256=head.content_sha256 if head else None,
            at=self.now,
        )

    def create_file(self, path: str, content: str | None = None, **fields: Any) -> FileWrite:
        head = self.memory(path, content, **fields)
        return FileWrite(
            path=path,
            head=head,
            expected_version=None,
            versions=[self.file_version(head, "create", agent_id=head.agent_id)],
            count_delta=1,
        )

    def update_file(
        self, head: FileMemory, content: str, expected_version: int | None = None
    ) -> FileWrite:
        changed = self.memory(
            head.path, content, head.version + 1, tenant=head.tenant, agent_id=head.agent_id
        )
        return FileWrite(
            path=head.path,
            head=changed,
            expected_version=head.version if expected_version is None else expected_version,
            versions=[self.file_version(changed, "update", agent_id=head.agent_id)],
            count_delta=0,
        )

    def delete_file(self, head: FileMemory, expected_version: int | None = None) -> FileWrite:
        gone = self.file_version(
            None, "delete", path=head.path, version=head.version + 1, agent_id=head.agent_id
        )
        return FileWrite(
            path=head.path,
            head=None,
            expected_version=head.version if expected_version is None else expected_version,
            versions=[gone],
            count_delta=-1,
        )

    def rename_file(self, head: FileMemory, to: str) -> list[FileWrite]:
        """A rename as a turn's commit makes it: one version under the new path."""
        moved = self.memory(
            to, head.content, head.version + 1, tenant=head.tenant, agent_id=head.agent_id
        )
        version = self.file_version(moved, "rename", from_path=head.path, agent_id=head.agent_id)
        return [
            FileWrite(
                path=head.path,
                head=None,
                expected_version=head.version,
                versions=[],
                count_delta=-1,
            ),
            FileWrite(
                path=to, head=moved, expected_version=None, versions=[version], count_delta=1
            ),
        ]


@pytest.fixture
def build() -> Build:
    return Build()


@pytest.fixture
def agent_with_session(store: Store, build: Build) -> Callable[..., Session]:
    """Create an agent and one session of it; returns the session."""

    def make(agent_id: str = "teams/web", tenant: str = "acme") -> Session:
        agent, version = build.agent(agent_id, tenant)
        store.create_agent(agent, version)
        session = build.session(agent)
        store.create_session(session)
        return session

    return make


# -- the search index ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def osmem() -> Iterator[Any]:
    """An opensearch-py client on osmem-server, an in-memory OpenSearch-compatible engine from
    PyPI (dev extra), one for the run; it exits with this process."""
    pytest.importorskip("osmem_server", reason="osmem-server (dev extra) is not installed here")
    from cloud_shape import osmem_engine

    with osmem_engine() as client:
        yield client


@pytest.fixture(params=["embedded", "opensearch", "s3vectors"])
def search_index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SearchIndex]:
    """Each SearchIndex adapter on an empty index: EmbeddedIndex in a new SQLite file,
    OpenSearchIndex on a new index of osmem-server (refreshed on write, as a test needs),
    S3VectorsIndex under moto (QueryVectors by exact search: tests/s3vectors_moto.py)."""
    if request.param == "embedded":
        store = _sqlite(tmp_path)
        yield store.attach_index(INDEX_MODEL, INDEX_DIMENSIONS)
        store.close()
        return
    if request.param == "s3vectors":
        request.getfixturevalue("aws")
        install_query_vectors(request.getfixturevalue("monkeypatch"))
        with s3vectors_index(REGION, dimensions=INDEX_DIMENSIONS, model_id=INDEX_MODEL) as index:
            yield index
        return
    engine = request.getfixturevalue("osmem")
    name = f"contract-{uuid.uuid4().hex[:12]}"
    index = OpenSearchIndex(engine, name, INDEX_DIMENSIONS, model_id=INDEX_MODEL, refresh=True)
    index.create_index()
    yield index
    engine.indices.delete(index=name, ignore_unavailable=True)
