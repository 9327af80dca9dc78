"""`agent-memory backfill` on DynamoDB under moto: agents and expiring records saved before the
schedule marker and the expiring index existed get them, once, paged, and a dry run writes
nothing."""

import json
from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.adapters.dynamodb import keys
from agent_memory.adapters.dynamodb.backfill import backfill
from agent_memory.cli import main
from agent_memory.domain.kernel.models import Agent, ManifestVersion
from agent_memory.domain.records.models import Provenance, Record, RecordVersion, RecordWrite

pytestmark = pytest.mark.integration

EVERY = {"harness": {"memory": {"enabled": True, "consolidation": {"every": "P1D"}}}}
PLAIN = {"harness": {"memory": {"enabled": True}}}
PAST = datetime.now(UTC) - timedelta(hours=1)


def agent(store, agent_id, manifest):
    now = datetime.now(UTC)
    made = Agent(
        tenant="acme",
        id=agent_id,
        manifest_version=1,
        manifest=manifest,
        created_at=now,
        updated_at=now,
    )
    store.create_agent(
        made, ManifestVersion(agent_id=agent_id, version=1, manifest=manifest, created_at=now)
    )


def record(store, record_id, expires_at):
    now = datetime.now(UTC)
    made = Record(
        tenant="acme",
        agent_id="teams/web",
        id=record_id,
        scope="agent",
        summary=f"fact {record_id}",
        kind="event",
        provenance=Provenance(actor="agent"),
        created_at=now,
        updated_at=now,
        expires_at=expires_at,
    )
    version = RecordVersion(
        record=made, operation="create", changed_by=Provenance(actor="agent"), at=now
    )
    store.write_records(
        "acme", "teams/web", [RecordWrite(record=made, expected_version=None, versions=[version])]
    )


def as_before_the_release(store):
    """Remove what the release writes with each save: the markers and the index shards."""
    for tenant, agent_id, _ in store.scheduled_consolidations():
        store.unschedule(tenant, agent_id)
    model = store._items.record
    for head in model.query(keys.records_pk("acme", "teams/web")):
        head.update(actions=[model.expiring.remove()])


@pytest.fixture
def old_table(dynamo_table):
    store = dynamo_table
    agent(store, "teams/web", EVERY)
    agent(store, "teams/plain", PLAIN)
    record(store, "rec_1", PAST)
    record(store, "rec_2", None)
    as_before_the_release(store)
    assert store.scheduled_consolidations() == []
    assert store.records_expiring(datetime.now(UTC), 10) == []
    return store


def test_a_dry_run_counts_and_writes_nothing(old_table):
    done = backfill(old_table, dry_run=True, page=2)
    assert (done.schedules, done.expiring, done.dry_run) == (1, 1, True)
    assert done.scanned > 4
    assert old_table.scheduled_consolidations() == []
    assert old_table.records_expiring(datetime.now(UTC), 10) == []


def test_a_pass_writes_what_is_missing_once(old_table):
    # When the backfill runs, a page of two items at a time
    done = backfill(old_table, page=2)
    # Then the scheduled agent is listed again and the expired record is found by the sweep
    assert (done.schedules, done.expiring) == (1, 1)
    assert old_table.scheduled_consolidations() == [("acme", "teams/web", "P1D")]
    assert [r.id for r in old_table.records_expiring(datetime.now(UTC), 10)] == ["rec_1"]
    # And a second pass finds nothing left to write
    again = backfill(old_table, page=2)
    assert (again.schedules, again.expiring, again.skipped) == (0, 0, [])


def test_an_agent_saved_meanwhile_is_left_to_its_own_save(old_table):
    # Given an agent whose manifest no longer asks for a schedule, saved after the scan read it
    store = old_table
    original = store._items.agent.from_raw_data
    saved = []

    def read_then_saved(raw):
        head = original(raw)
        if head.agent_id == "teams/web" and not saved:
            model = store._items.agent
            model.key(head.pk, head.sk).update(actions=[model.manifest_version.set(2)])
            saved.append(head)
        return head

    store._items.agent.from_raw_data = read_then_saved
    try:
        done = backfill(store)
    finally:
        store._items.agent.from_raw_data = original
    # Then no marker is written over the newer save
    assert done.schedules == 0
    assert done.skipped == ["acme/teams/web"]
    assert store.scheduled_consolidations() == []


def test_the_cli_command_runs_it(old_table, monkeypatch, capsys):
    monkeypatch.setenv("AGENT_MEMORY_TABLE_NAME", old_table.table_name)
    assert main(["backfill", "--dry-run"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["schedules"], out["expiring"], out["dry_run"]) == (1, 1, True)
    assert main(["backfill"]) == 0
    assert old_table.scheduled_consolidations() == [("acme", "teams/web", "P1D")]


def test_the_cli_command_needs_a_table(monkeypatch, capsys, aws_env):
    monkeypatch.delenv("AGENT_MEMORY_TABLE_NAME", raising=False)
    assert main(["backfill"]) == 2
    assert "name the table" in capsys.readouterr().err
