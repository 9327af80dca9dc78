"""The embedded shape's expiry sweeper, against a controlled clock: it writes EXPIRED down as a
version, in the index and the audit trail, and purges a record with its versions once the
tenant's retention has passed after its expiry. (The cloud's purge is DynamoDB's TTL:
tests/contract/test_record_expiry_contract.py and test_indexer.py; its audit entry is here.)"""

from datetime import UTC, datetime, timedelta

import pytest
from test_api_record_expiry import committed, iso
from test_api_records import A, manifest, stored

from agent_memory.adapters.dynamodb.purge_audit import purge_audit
from agent_memory.domain.files.models import TenantLimits
from agent_memory.domain.records.models import Provenance, Record
from agent_memory.settings import Settings

pytestmark = pytest.mark.integration

AGENT_ID = "teams/web/releases"


@pytest.fixture
def agent(api, embedded):
    api.ok("PUT", A, manifest(), expect=201)
    return api


def expire(api, record, when):
    return api.ok("PATCH", f"{A}/-/records/{record['id']}", {"expiresAt": iso(when)})


def test_only_the_embedded_shape_runs_a_sweeper(services, store):
    assert (services.expiry is not None) == (type(store).__name__ == "SqliteStore")


def test_a_sweep_writes_expired_down_as_a_version_announced_and_audited(agent, services):
    # Given a record whose expiry has passed, and one whose expiry has not
    now = datetime.now(UTC)
    gone = committed(agent, "The office is closed on Friday")
    kept = committed(agent, "The office opens at nine")
    expire(agent, gone, now - timedelta(minutes=1))
    expire(agent, kept, now + timedelta(days=1))
    events = services.events.subscribe("acme", AGENT_ID, None)

    # When the sweeper runs at `now`
    counts = services.expiry.sweep(now)

    # Then the expired one has a version saying so, by the sweeper, and nothing else changed
    assert (counts.expired, counts.purged) == (1, 0)
    versions = agent.ok("GET", f"{A}/-/records/{gone['id']}/versions")["versions"]
    assert [v["operation"] for v in versions] == ["expire", "set_expiry", "create"]
    assert versions[0]["record"]["status"] == "EXPIRED"
    assert versions[0]["changedBy"]["actor"] == "system:expiry"
    assert agent.ok("GET", f"{A}/-/records/{kept['id']}")["version"] == 2
    _, event = events.queue.get_nowait()
    assert [c.model_dump(exclude_none=True) for c in event.changes] == [
        {"id": gone["id"], "operation": "expire", "version": 3}
    ]
    entries = agent.ok("GET", "/v1/audit", actor="system:expiry")["entries"]
    assert [(e["method"], e["target"]) for e in entries] == [("EXPIRE", f"records/{gone['id']}")]
    # The index says so too: a listing of EXPIRED records ranked by words finds it
    assert [r["id"] for r in stored(agent, query="office closed", status="EXPIRED")] == [gone["id"]]
    # A second sweep finds nothing left to do
    assert services.expiry.sweep(now) == counts.__class__(expired=0, purged=0)


def test_an_expired_record_is_purged_with_its_versions_after_the_tenants_retention(
    agent, services, store
):
    # Given the tenant keeps expired records two days, and a record that expired at T
    store.save_tenant_limits("acme", TenantLimits(expired_retention="P2D"))
    t = datetime.now(UTC) - timedelta(seconds=1)
    record = committed(agent, "The sprint ends on Wednesday")
    expire(agent, record, t)

    # When the sweeper runs within the retention, it stays readable
    services.expiry.sweep(t + timedelta(days=2) - timedelta(seconds=1))
    assert agent.ok("GET", f"{A}/-/records/{record['id']}")["status"] == "EXPIRED"

    # Then, once the retention has passed, the record and its versions are gone
    counts = services.expiry.sweep(t + timedelta(days=2))
    assert counts.purged == 1
    status, body = agent.call("GET", f"{A}/-/records/{record['id']}")
    assert (status, body["error"]["code"]) == (404, "record_not_found")
    assert store.record_versions("acme", AGENT_ID, record["id"], 10, None) == []
    assert stored(agent, status="all", query="sprint ends") == []
    entries = agent.ok("GET", "/v1/audit", actor="system:expiry")["entries"]
    assert [e["method"] for e in entries] == ["EXPIRE", "PURGE"]


def test_the_default_retention_is_thirty_days(agent, services):
    t = datetime.now(UTC) - timedelta(seconds=1)
    record = committed(agent, "The demo is on Thursday")
    expire(agent, record, t)
    assert services.expiry.sweep(t + timedelta(days=30) - timedelta(seconds=1)).purged == 0
    assert services.expiry.sweep(t + timedelta(days=30)).purged == 1


def test_a_record_given_a_later_expiry_before_the_purge_is_kept(agent, services):
    t = datetime.now(UTC) - timedelta(seconds=1)
    record = committed(agent, "The retro is on Monday")
    expire(agent, record, t)
    services.expiry.sweep(t)
    back = agent.ok("PATCH", f"{A}/-/records/{record['id']}", {"expiresAt": None})
    assert back["status"] == "ACTIVE"
    assert services.expiry.sweep(t + timedelta(days=365)).purged == 0
    assert [r["id"] for r in stored(agent)] == [record["id"]]


def test_a_purge_by_dynamodbs_ttl_is_kept_in_the_audit_trail(dynamo_table, tmp_path):
    # Given the indexer's hook as the cloud wires it, and a record the TTL removed
    now = datetime.now(UTC)
    record = Record(
        tenant="acme",
        agent_id=AGENT_ID,
        id="rec_1",
        scope="agent",
        summary="The office is closed on Friday",
        kind="event",
        provenance=Provenance(actor="agent"),
        created_at=now,
        updated_at=now,
        expires_at=now,
    )
    # When it is told of the purge
    purge_audit(dynamo_table, Settings(data_dir=tmp_path).audit_retention_days)(record)
    # Then the tenant's audit trail has it, by the sweeper's name
    (entry,) = dynamo_table.list_audit("acme", None, 10, None, None, now)
    assert (entry.actor, entry.method, entry.agent_id, entry.target) == (
        "system:expiry",
        "PURGE",
        AGENT_ID,
        "records/rec_1",
    )


def test_a_purge_told_twice_by_a_retried_stream_batch_is_audited_once(dynamo_table, tmp_path):
    # Given the indexer's hook as the cloud wires it, and two records the TTL removed
    now = datetime.now(UTC)
    fields = {
        "tenant": "acme",
        "agent_id": AGENT_ID,
        "scope": "agent",
        "summary": "The office is closed on Friday",
        "kind": "event",
        "provenance": Provenance(actor="agent"),
        "created_at": now,
        "updated_at": now,
        "expires_at": now,
    }
    first, second = Record(id="rec_1", **fields), Record(id="rec_2", **fields)
    hook = purge_audit(dynamo_table, Settings(data_dir=tmp_path).audit_retention_days)
    # When a stream batch tells of the first purge, fails, and is retried with both
    hook(first)
    hook(first)
    hook(second)
    # Then each purge is in the audit trail once
    entries = dynamo_table.list_audit("acme", None, 10, None, None, now)
    assert [(e.method, e.target) for e in entries] == [
        ("PURGE", "records/rec_1"),
        ("PURGE", "records/rec_2"),
    ]
    # And the same record id of another agent is its own purge
    hook(first.model_copy(update={"agent_id": "teams/other"}))
    assert len(dynamo_table.list_audit("acme", None, 10, None, None, now)) == 3
