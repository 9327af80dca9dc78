"""Fixtures of the Store contract suite: the same tests run against SqliteStore and DynamoStore."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws
from moto.core.botocore_stubber import BotocoreStubber

from agent_memory.adapters.dynamodb import DynamoStore
from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.domain.models import Agent, ManifestVersion, Session, Turn, utcnow
from agent_memory.domain.ports import Store

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
