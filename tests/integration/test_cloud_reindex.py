"""`agent-memory reindex` in the cloud shape (AGENT_MEMORY_STORE=dynamodb) and the restore steps
of docs/backup.md under moto: a table restored to a point in time, pointed at by a fresh
service with an empty index, answers searches as before once the reindex has run; documents
whose item the table no longer holds are swept; a stopped run resumes from its printed cursor;
wrong settings are refused in one line; and an overwritten history object is brought back from
its previous S3 version (tests/cloud_shape.py: DynamoDB under moto, OpenSearch on osmem-server,
Bedrock embeddings answered by the meter)."""

from __future__ import annotations

import json
import os
from contextlib import contextmanager

import pytest

from agent_memory.cli import main

pytestmark = pytest.mark.integration

pytest.importorskip("osmem_server", reason="osmem-server (dev extra) is not installed")

A = "/v1/agents/ops/assistant"
B = "/v1/agents/ops/other"
AGENT = {"role": "agent"}
RESTORED = "agent-memory-restored"
MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["agent"], "write": ["agent"]},
            "tools": ["add_memory"],
        },
        "history": {"index": "messages"},
    }
}


def seed(api, agent=A, place="Berlin"):
    """An agent knowing about a datacenter three ways: a record, a file memory, history."""
    api.ok("PUT", agent, MANIFEST, expect=201)
    sid = api.ok("POST", f"{agent}/-/sessions", {"id": "s1"}, expect=201)["id"]
    turn = api.ok("POST", f"{agent}/-/sessions/{sid}/turns", {}, expect=201)["id"]
    path = f"{agent}/-/sessions/{sid}/turns/{turn}"
    said = f"the {place} datacenter is being decommissioned"
    api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": said}]})
    summary = f"{place} datacenter closes in March"
    api.ok("POST", f"{path}/tools/add_memory", {"summary": summary, "caller": AGENT})
    api.ok("POST", f"{path}/commit")
    content = f"# Datacenters\n\n{place} datacenter: decommissioned.\n"
    api.ok("PUT", f"{agent}/-/memories/infra/datacenters.md", {"content": content}, expect=201)
    api.ok(
        "PUT", f"{agent}/-/memories/misc/lunch.md", {"content": "Pizza on Fridays.\n"}, expect=201
    )


def answers(api, agent=A, place="Berlin"):
    """What the three searches answer (records, history, and the agent's one search)."""
    query = f"{place} datacenter"
    return {
        "records": api.ok("GET", f"{agent}/-/records", query=query)["records"],
        "history": api.ok("GET", f"{agent}/-/history", query=query)["events"],
        "search": api.ok("GET", f"{agent}/-/search", query=query)["hits"],
    }


@contextmanager
def env(**names):
    """Environment variables set for a block and put back after it."""
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update({k: v for k, v in names.items() if v is not None})
    for name in [k for k, v in names.items() if v is None]:
        os.environ.pop(name, None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def reindex(capsys, *flags):
    """Run the command; (exit status, its JSON summary or None, what it said on stderr)."""
    status = main(["reindex", *flags])
    out, err = capsys.readouterr()
    # Its summary is the last line (the service's metrics, printed as EMF, come before it).
    return status, (json.loads(out.splitlines()[-1]) if status == 0 else None), err


def stored(index_name):
    """Every document the named index holds: (agent, kind, id)."""
    from agent_memory.bootstrap import build_cloud_index
    from agent_memory.settings import Settings

    with env(AGENT_MEMORY_OPENSEARCH_INDEX=index_name):
        index = build_cloud_index(Settings(), None)
        return {(d.agent_id, d.kind, d.id) for d in index.stored(None, None)}


def delete_items(*found):
    """Delete items by (pk, sk), through the client the meter reads (typed values)."""
    import boto3

    from cloud_shape import REGION, TABLE

    ddb = boto3.client("dynamodb", region_name=REGION)
    for pk, sk in found:
        ddb.delete_item(TableName=TABLE, Key={"pk": {"S": pk}, "sk": {"S": sk}})


def items_of(agent_id):
    """The keys of every item of an agent, its head included."""
    import boto3

    from agent_memory.adapters.dynamodb import keys
    from cloud_shape import REGION, TABLE

    ddb = boto3.client("dynamodb", region_name=REGION)
    every = [(i["pk"]["S"], i["sk"]["S"]) for i in ddb.scan(TableName=TABLE)["Items"]]
    head = (keys.agents_pk("acme"), keys.AGENT + agent_id)
    return [k for k in every if keys.agent_of(k[0]) == ("acme", agent_id) or k == head]


def fresh_api():
    from apiclient import ApiClient
    from cloud_shape import LambdaContext, load_function

    function = load_function("api")
    return ApiClient(lambda event, _: function.lambda_handler(event, LambdaContext()))


def test_a_restored_table_with_an_empty_index_answers_as_before_once_reindexed(tmp_path, capsys):
    import boto3

    from cloud_shape import INDEX, REGION, TABLE, cloud_shape

    with cloud_shape(tmp_path) as cloud:
        # Given two agents' records, memories and history, written and indexed by the stream
        seed(cloud.api)
        seed(cloud.api, B, "Lisbon")
        cloud.index_stream()
        before = answers(cloud.api)
        assert all(before.values()), before
        assert {h["type"] for h in before["search"]} == {"record", "memory", "history"}
        indexed = stored(INDEX)

        # When the table is restored to a point in time into a new table (moto copies the
        # table as it is: it keeps no earlier states) and a fresh service uses it, with an
        # index of its own that starts empty
        ddb = boto3.client("dynamodb", region_name=REGION)
        ddb.restore_table_to_point_in_time(
            SourceTableName=TABLE, TargetTableName=RESTORED, UseLatestRestorableTime=True
        )
        with env(AGENT_MEMORY_TABLE_NAME=RESTORED, AGENT_MEMORY_OPENSEARCH_INDEX="restored"):
            api = fresh_api()
            empty = answers(api)
            assert (empty["records"], empty["history"], empty["search"]) == ([], [], [])

            # Then a dry run counts what the reindex would write and writes nothing
            status, dry, _ = reindex(capsys, "--dry-run")
            assert status == 0 and dry["dry_run"] and dry["documents"] == len(indexed)
            assert dry["cursor"] is None and dry["removed"] == 0
            assert answers(api)["records"] == []

            # And the reindex makes every document the stream made, and the same answers
            status, done, err = reindex(capsys)
            assert status == 0, err
            assert (done["documents"], done["swept"], done["removed"]) == (
                len(indexed),
                len(indexed),
                0,
            )
            assert stored("restored") == indexed
            assert answers(api) == before
            assert answers(api, B, "Lisbon") == answers(cloud.api, B, "Lisbon")

            # And a second run changes nothing: the documents are there at their versions
            status, again, _ = reindex(capsys)
            assert status == 0 and again["removed"] == 0
            assert stored("restored") == indexed and answers(api) == before


def test_documents_whose_item_the_table_no_longer_holds_are_swept(tmp_path, capsys):

    from agent_memory.adapters.dynamodb import keys
    from cloud_shape import INDEX, cloud_shape

    with cloud_shape(tmp_path) as cloud:
        # Given two agents indexed by the stream
        seed(cloud.api)
        seed(cloud.api, B, "Lisbon")
        cloud.index_stream()
        indexed = stored(INDEX)
        [record] = answers(cloud.api)["records"]

        # When the table loses items the index still holds, as a table restored to a time
        # before they were written does (deleted here without the stream seeing it): one of
        # A's records and a memory, and every item of agent B
        delete_items(
            (keys.records_pk("acme", "ops/assistant"), keys.record_sk(record["id"])),
            (keys.files_pk("acme", "ops/assistant"), keys.file_sk("/memories/misc/lunch.md")),
            *items_of("ops/other"),
        )
        gone = {
            ("ops/assistant", "record", record["id"]),
            ("ops/assistant", "file", "/memories/misc/lunch.md"),
        }
        gone |= {doc for doc in indexed if doc[0] == "ops/other"}
        assert len(gone) == 6

        # Then a dry run counts them and removes nothing
        status, dry, _ = reindex(capsys, "--dry-run")
        assert status == 0 and (dry["swept"], dry["removed"]) == (len(indexed), 6)
        assert stored(INDEX) == indexed

        # And the reindex removes exactly them, B's included though the table holds no agent B
        status, done, err = reindex(capsys)
        assert status == 0, err
        assert (done["documents"], done["removed"], done["not_swept"]) == (2, 6, None)
        assert stored(INDEX) == indexed - gone
        left = answers(cloud.api)
        assert left["records"] == [] and left["history"]
        assert {h["type"] for h in left["search"]} == {"memory", "history"}


def test_narrowed_to_an_agent_it_reads_and_sweeps_that_agent_only(tmp_path, capsys):

    from agent_memory.adapters.dynamodb import keys
    from cloud_shape import INDEX, cloud_shape

    with cloud_shape(tmp_path) as cloud:
        seed(cloud.api)
        seed(cloud.api, B, "Lisbon")
        cloud.index_stream()
        indexed = stored(INDEX)
        # Given both agents' file memory gone from the table, unseen by the stream
        delete_items(
            *[
                (keys.files_pk("acme", agent_id), keys.file_sk("/memories/misc/lunch.md"))
                for agent_id in ("ops/assistant", "ops/other")
            ]
        )

        # When the reindex is narrowed to agent B of tenant acme
        status, done, err = reindex(capsys, "--tenant", "acme", "--agent", "ops/other")

        # Then only B's documents are written and only B's lost memory is removed
        assert status == 0, err
        assert (done["documents"], done["swept"], done["removed"]) == (3, 4, 1)
        assert stored(INDEX) == indexed - {("ops/other", "file", "/memories/misc/lunch.md")}


def test_a_stopped_run_resumes_from_its_printed_cursor(tmp_path, capsys, monkeypatch):
    import boto3

    from agent_memory.adapters.dynamodb import reindex as cloud
    from agent_memory.adapters.dynamodb.stream_indexer import StreamIndexer
    from agent_memory.domain.kernel.errors import StorageUnavailable
    from cloud_shape import INDEX, REGION, TABLE, cloud_shape

    with cloud_shape(tmp_path) as shape:
        seed(shape.api)
        seed(shape.api, B, "Lisbon")
        shape.index_stream()
        indexed = stored(INDEX)
        with env(AGENT_MEMORY_OPENSEARCH_INDEX="rebuilt"):
            # Given a run, ten items a page, that the index refuses on its fourth page
            monkeypatch.setattr(cloud, "PAGE", 10)
            replay = StreamIndexer.replay
            pages = []

            def refusing(self, inserts, write=True):
                pages.append(len(inserts))
                if len(pages) == 4:
                    raise StorageUnavailable("the search index is unavailable")
                return replay(self, inserts, write)

            monkeypatch.setattr(StreamIndexer, "replay", refusing)
            status, _, err = reindex(capsys)
            assert status == 1
            *progress, failed = err.strip().splitlines()
            assert len(progress) == 3 and failed.startswith("agent-memory: ")
            assert "to resume: agent-memory reindex --from " in progress[-1]
            cursor = progress[-1].rsplit(" ", 1)[1]

            # When it is run again from the cursor its last progress line printed
            monkeypatch.setattr(StreamIndexer, "replay", replay)
            status, done, err = reindex(capsys, "--from", cursor)

            # Then it reads only the rest of the table, and the index holds every document
            assert status == 0, err
            ddb = boto3.client("dynamodb", region_name=REGION)
            total = ddb.scan(TableName=TABLE, Select="COUNT")["Count"]
            assert done["scanned"] == total - 30
            assert stored("rebuilt") == indexed


def test_wrong_settings_are_refused_in_one_line(tmp_path, capsys):
    from cloud_shape import cloud_shape

    with cloud_shape(tmp_path):
        # A table that does not exist
        with env(AGENT_MEMORY_TABLE_NAME="no-such-table"):
            status, _, err = reindex(capsys)
        assert status == 1
        assert err == (
            "agent-memory: no table no-such-table in us-east-1: "
            "name the restored table in AGENT_MEMORY_TABLE_NAME\n"
        )
        # No index to write to
        with env(AGENT_MEMORY_OPENSEARCH_ENDPOINT=None):
            status, _, err = reindex(capsys)
        assert status == 1 and err.count("\n") == 1 and "AGENT_MEMORY_OPENSEARCH_ENDPOINT" in err
        # No region: the settings refuse the dynamodb store
        with env(AWS_REGION=None, AWS_DEFAULT_REGION=None):
            status, _, err = reindex(capsys)
        assert status == 1 and err.count("\n") == 1 and err.startswith("agent-memory: ")
        # A cursor the command never printed
        status, _, err = reindex(capsys, "--from", "not-a-cursor")
        assert status == 1
        assert (
            err == "agent-memory: 'not-a-cursor' is not a cursor `agent-memory reindex` printed\n"
        )
        # --all is the embedded reindex's
        status, _, err = reindex(capsys, "--all")
        assert status == 1 and "--all is the embedded shape's" in err


def test_the_embedded_reindex_refuses_the_cloud_flags(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_STORE", "sqlite")
    status, _, err = reindex(capsys, "--data-dir", str(tmp_path), "--agent", "ops/assistant")
    assert status == 1
    assert "are the cloud shape's (AGENT_MEMORY_STORE=dynamodb)" in err


def test_an_overwritten_history_object_is_brought_back_from_its_previous_version(tmp_path):
    """docs/backup.md, "Restore a history object": list-object-versions, then copy-object of
    the version to bring back over the current key; the store reads the event it held."""
    import boto3

    from cloud_shape import BUCKET, REGION, cloud_shape

    with cloud_shape(tmp_path) as cloud:
        s3 = boto3.client("s3", region_name=REGION)
        # Given the bucket versioned, as template.yaml makes it, and an event too large for
        # an item, kept in it
        s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
        api = cloud.api
        api.ok("PUT", A, MANIFEST, expect=201)
        sid = api.ok("POST", f"{A}/-/sessions", {"id": "s1"}, expect=201)["id"]
        turn = api.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
        said = "the Berlin datacenter " + "word " * 80_000
        path = f"{A}/-/sessions/{sid}/turns/{turn}"
        api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": said}]})
        api.ok("POST", f"{path}/commit")
        [key] = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET)["Contents"]]
        store = cloud.services.store

        kept = store.turn_events("acme", "ops/assistant", sid, turn)
        assert said.strip() in json.dumps(kept[0].model_dump(mode="json"))

        # When the object is overwritten (here, its event's text changed)
        body = json.loads(s3.get_object(Bucket=BUCKET, Key=key)["Body"].read())
        changed = json.dumps(body).replace("Berlin", "Lisbon")
        s3.put_object(Bucket=BUCKET, Key=key, Body=changed.encode())
        assert store.turn_events("acme", "ops/assistant", sid, turn) != kept

        # And brought back: its versions listed, the earlier one copied over the current key
        versions = s3.list_object_versions(Bucket=BUCKET, Prefix=key)["Versions"]
        assert len(versions) == 2
        [earlier] = [v["VersionId"] for v in versions if not v["IsLatest"]]
        s3.copy_object(
            Bucket=BUCKET, Key=key, CopySource={"Bucket": BUCKET, "Key": key, "VersionId": earlier}
        )

        # Then the store reads the event as it was written
        assert store.turn_events("acme", "ops/assistant", sid, turn) == kept
        assert len(s3.list_object_versions(Bucket=BUCKET, Prefix=key)["Versions"]) == 3


def test_with_s3_vectors_the_sweep_removes_what_it_can_list_and_says_what_it_cannot(
    monkeypatch,
):
    """S3 Vectors names an agent's index by a digest of tenant and agent: the sweep lists the
    indexes of the agents the table holds, and says that another agent's vectors stay."""
    import boto3
    from moto import mock_aws

    from agent_memory.adapters.dynamodb import DynamoStore, keys
    from agent_memory.adapters.dynamodb.reindex import CloudReindexed, sweep
    from agent_memory.domain.search.index import IndexDoc, StoredDoc
    from s3vectors_moto import s3vectors_index

    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    region, table = "us-east-1", "agent-memory-s3v"
    with mock_aws(), s3vectors_index(region, table=table, dimensions=3) as index:
        from index_docs import T0

        def made(agent_id, kind, doc_id, session_id=None):
            return IndexDoc(
                tenant="acme",
                agent_id=agent_id,
                kind=kind,
                id=doc_id,
                version=1,
                text="deploy",
                created_at=T0,
                session_id=session_id,
                scope="session" if session_id else "agent",
                vector=[1.0, 0.0, 0.0],
                model_id="test-model",
            )

        # Given vectors of an agent the table holds (one record kept, one gone, an event whose
        # id marker is gone) and of an agent the table does not hold
        index.upsert(
            [
                made("ops/kept", "record", "r1"),
                made("ops/kept", "record", "r2"),
                made("ops/kept", "event", "evt_1.1", "s1"),
                made("ops/gone", "record", "r9"),
            ]
        )
        ddb = boto3.client("dynamodb", region_name=region)
        for pk, sk in [
            (keys.agents_pk("acme"), keys.AGENT + "ops/kept"),
            (keys.records_pk("acme", "ops/kept"), keys.record_sk("r1")),
        ]:
            ddb.put_item(TableName=table, Item={"pk": {"S": pk}, "sk": {"S": sk}})

        # When the index is swept
        done = CloudReindexed()
        sweep(DynamoStore(table, region), index, None, None, done)

        # Then the kept agent's lost record and event go, and the other agent's vector stays,
        # said in the summary
        assert (done.swept, done.removed) == (3, 2)
        assert set(index.stored("acme", "ops/kept") or []) == {
            StoredDoc("acme", "ops/kept", "record", "r1")
        }
        assert [d.id for d in index.stored("acme", "ops/gone") or []] == ["r9"]
        assert done.not_swept and "cannot be listed back" in done.not_swept
