"""An agent moved from the embedded shape (SQLite, local model) to the cloud shape (DynamoDB
under moto, OpenSearch, the stream indexer, Bedrock embeddings) through the bundle: afterwards
the two answer the same reads, and the bundle imported again changes nothing."""

from __future__ import annotations

import pytest

from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.bundle import import_bundle
from agent_memory.settings import Settings
from apiclient import ApiClient, drained
from transfer_agent import move, populate, reads, through

pytestmark = pytest.mark.integration


@pytest.fixture
def laptop(tmp_path, embedder):
    (tmp_path / "laptop").mkdir()
    store = SqliteStore(tmp_path / "laptop" / "db.sqlite3")
    services = build_services(
        Settings(data_dir=tmp_path / "laptop"), store=store, embedder=embedder
    )
    yield ApiClient(drained(Api(services).handle, services))
    services.close()


def test_an_agent_moved_from_the_laptop_to_the_cloud_answers_the_same_reads(laptop, tmp_path):
    from cloud_shape import cloud_shape

    # Given an agent with versions of everything on the embedded shape
    populate(laptop)
    bundle = tmp_path / "agent.bundle"
    with cloud_shape(tmp_path / "cloud") as cloud:
        # When its bundle is imported into the cloud shape and the stream indexed
        totals = move(laptop, cloud.api, bundle)
        cloud.index_stream()
        # Then the cloud answers every read as the laptop does: records with their versions,
        # memories and their versions, sessions, turns, events, a history and a record search
        assert reads(cloud.api) == reads(laptop)
        assert totals.written == totals.items
        # The cloud embeds with another model (Titan): nothing of the bundle's vectors is used
        assert totals.vectors_reused == 0
        # And imported again (state file gone), every item is kept and nothing is written
        (tmp_path / "agent.bundle.import-state").unlink()
        cloud.index_stream()  # what the reads wrote (their usage)
        again = import_bundle(bundle, through(cloud.api)[1])
        assert (again.written, again.kept) == (0, again.items)
        # (each request is audited, and only that is written)
        keys = [r["dynamodb"]["Keys"]["pk"]["S"] for r in cloud.meter.take_stream()]
        assert [k for k in keys if not k.endswith("#AUDIT")] == []
        assert reads(cloud.api) == reads(laptop)
