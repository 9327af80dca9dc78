"""The stream indexer: DynamoDB Streams events, built from the table's real items, into an index.

The NewImage/OldImage of each stream record is the item DynamoStore writes (RecordItem.of,
FileItem.of), serialised as DynamoDB serialises it. The index and the embedder are in-memory
fakes of their ports.
"""

from __future__ import annotations

import importlib.util
import pathlib
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import count

import boto3
import numpy as np
import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
from boto3.dynamodb.types import TypeSerializer
from moto import mock_aws
from pydantic import ValidationError

from agent_memory.adapters.dynamodb.file_items import FileItem
from agent_memory.adapters.dynamodb.record_items import RecordItem
from agent_memory.adapters.dynamodb.stream_indexer import EMBED_MAX_CHARS, StreamIndexer
from agent_memory.domain.files.models import FileMemory, sha256
from agent_memory.domain.kernel.errors import StorageUnavailable
from agent_memory.domain.records.models import Provenance, Record, RecordStatus
from agent_memory.domain.search.embeddings import Embedder, Embedding
from agent_memory.domain.search.index import DocKind, Hit, IndexDoc, IndexFilter, SearchIndex
from agent_memory.domain.search.service import record_doc

pytestmark = pytest.mark.integration

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
HANDLER = pathlib.Path(__file__).parents[2] / "functions/indexer/app.py"


class MemoryIndex(SearchIndex):
    """The SearchIndex port in a dict, with the port's version rule."""

    def __init__(self) -> None:
        self.docs: dict[tuple[str, str, str, str], IndexDoc] = {}
        self.writes = 0
        self.requests: list[str] = []  # each upsert or delete call, as a request to an engine
        self.refused: set[str] = set()  # ids whose writes fail, as an engine may refuse them

    def _refuse(self, ids: Sequence[str]) -> None:
        if self.refused.intersection(ids):
            raise StorageUnavailable("the search index refused some documents")

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        self.requests.append("upsert")
        self._refuse([doc.id for doc in docs])
        for doc in docs:
            key = (doc.tenant, doc.agent_id, doc.kind, doc.id)
            held = self.docs.get(key)
            if held is None or held.version <= doc.version:
                self.docs[key] = doc
                self.writes += 1

    def delete(self, tenant: str, agent_id: str, kind: DocKind, ids: Sequence[str]) -> None:
        self.requests.append("delete")
        self._refuse(ids)
        for doc_id in ids:
            self.docs.pop((tenant, agent_id, kind, doc_id), None)

    def delete_agent(self, tenant: str, agent_id: str) -> None:
        for key in [k for k in self.docs if k[:2] == (tenant, agent_id)]:
            del self.docs[key]

    def lexical(self, tenant, agent_id, query, where: IndexFilter, limit) -> list[Hit]:
        return []

    def vector(self, tenant, agent_id, vector, where: IndexFilter, limit) -> list[Hit]:
        return []

    def get(self, doc_id: str, kind: str = "record") -> IndexDoc | None:
        return self.docs.get(("t1", "teams/web", kind, doc_id))


class FakeEmbedder(Embedder):
    model_id = "fake-embed-v1"
    dimensions = 4

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
        self.texts += texts
        rows = np.array([[len(t) % 7 + 1, 1.0, 0.0, 2.0] for t in texts], dtype=np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        return Embedding(vectors=rows, model_id=self.model_id, input_tokens=len(texts))


def make_record(record_id: str = "rec_1", version: int = 1, **fields) -> Record:
    values = {
        "tenant": "t1",
        "agent_id": "teams/web",
        "id": record_id,
        "scope": "session",
        "session_id": "ses_1",
        "summary": "Releases ship on Fridays",
        "content": "Deploy to eu-west-1 first, then us-east-1.",
        "kind": "fact",
        "labels": {"team": "web"},
        "version": version,
        "provenance": Provenance(actor="agent", session_id="ses_1", turn_id="turn_1"),
        "created_at": T0,
        "updated_at": T0,
    }
    values.update(fields)
    return Record(**values)


def record_image(record: Record) -> dict:
    item = RecordItem.of("t1", "teams/web", record)
    serializer = TypeSerializer()
    return {name: serializer.serialize(value) for name, value in item.attribute_values.items()}


def file_image(path: str, content: str, version: int = 1, at: datetime = T0) -> dict:
    head = FileMemory(
        tenant="t1",
        agent_id="teams/web",
        path=path,
        content=content,
        bytes=len(content.encode()),
        content_sha256=sha256(content),
        version=version,
        updated_at=at,
        updated_by="agent",
    )
    return FileItem.of("t1", "teams/web", head).serialize()


_sequence = count(100_000_000_000_000_000_000)


def change(event_name: str, new: dict | None = None, old: dict | None = None) -> dict:
    image = new or old
    assert image is not None
    stream = {
        "ApproximateCreationDateTime": 1740830400,
        "Keys": {"pk": image["pk"], "sk": image["sk"]},
        "SequenceNumber": str(next(_sequence)),
        "SizeBytes": 512,
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    }
    if new is not None:
        stream["NewImage"] = new
    if old is not None:
        stream["OldImage"] = old
    return {
        "eventID": f"evt-{stream['SequenceNumber']}",
        "eventName": event_name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": stream,
        "eventSourceARN": (
            "arn:aws:dynamodb:us-east-1:123456789012:table/agent-memory/stream/"
            "2025-03-01T00:00:00.000"
        ),
    }


def batch(*changes: dict) -> dict:
    return {"Records": list(changes)}


@pytest.fixture
def index() -> MemoryIndex:
    return MemoryIndex()


@pytest.fixture
def embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def indexer(index, embedder) -> StreamIndexer:
    return StreamIndexer(index, embedder)


def test_a_new_record_is_embedded_and_indexed(indexer, index, embedder):
    # Given a record head inserted in the table
    event = batch(change("INSERT", new=record_image(make_record())))
    # When the indexer processes the stream batch
    response = indexer.process(event)
    # Then it is indexed with its text, filters and vector
    assert response == {"batchItemFailures": []}
    doc = index.get("rec_1")
    assert doc is not None
    assert doc.text == "Releases ship on Fridays\nDeploy to eu-west-1 first, then us-east-1.\nweb"
    assert (doc.version, doc.scope, doc.session_id, doc.status) == (1, "session", "ses_1", "ACTIVE")
    assert (doc.record_kind, doc.labels, doc.preview, doc.created_at) == (
        "fact",
        {"team": "web"},
        False,
        T0,
    )
    assert doc.model_id == "fake-embed-v1"
    assert len(doc.vector) == 4
    assert all(type(x) is float for x in doc.vector)
    assert embedder.texts == [doc.text]


def test_one_bad_record_is_reported_and_the_others_are_indexed(indexer, index):
    # Given a batch whose middle record head holds a doc that is not a record
    bad = record_image(make_record("rec_2"))
    bad["doc"] = {"S": '{"id": "rec_2", "summary": "truncated'}
    changes = [
        change("INSERT", new=record_image(make_record("rec_1"))),
        change("INSERT", new=bad),
        change("INSERT", new=record_image(make_record("rec_3"))),
    ]
    # When it is processed
    response = indexer.process(batch(*changes))
    # Then only the bad one is reported, by its sequence number, and the others are indexed
    bad_sequence = changes[1]["dynamodb"]["SequenceNumber"]
    assert response == {"batchItemFailures": [{"itemIdentifier": bad_sequence}]}
    assert index.get("rec_1") is not None
    assert index.get("rec_2") is None
    assert index.get("rec_3") is not None


def test_a_batch_where_every_record_fails_raises_so_lambda_retries_it(indexer):
    bad = record_image(make_record())
    bad["doc"] = {"S": "not json"}
    with pytest.raises(BatchProcessingError):
        indexer.process(batch(change("INSERT", new=bad)))


def test_a_batch_is_written_to_the_index_together(indexer, index):
    # Given a batch of three new records and the removal of a fourth
    index.upsert([record_doc(make_record("rec_4"))])
    index.requests.clear()
    changes = [change("INSERT", new=record_image(make_record(f"rec_{i}"))) for i in (1, 2, 3)]
    changes.append(change("REMOVE", old=record_image(make_record("rec_4"))))
    # When it is processed
    response = indexer.process(batch(*changes))
    # Then the index gets one upsert of the three and one delete, not one request a record
    assert response == {"batchItemFailures": []}
    assert index.requests == ["upsert", "delete"]
    assert {i for i in ("rec_1", "rec_2", "rec_3", "rec_4") if index.get(i)} == {
        "rec_1",
        "rec_2",
        "rec_3",
    }


def test_a_write_the_index_refuses_fails_only_its_record(indexer, index):
    # Given an index that refuses rec_2's document
    index.refused.add("rec_2")
    changes = [change("INSERT", new=record_image(make_record(f"rec_{i}"))) for i in (1, 2, 3)]
    # When the batch is processed
    response = indexer.process(batch(*changes))
    # Then the batch is written again record by record, and only rec_2's change is reported
    assert response == {
        "batchItemFailures": [{"itemIdentifier": changes[1]["dynamodb"]["SequenceNumber"]}]
    }
    assert index.get("rec_1") is not None and index.get("rec_3") is not None
    assert index.get("rec_2") is None
    assert index.requests == ["upsert", "upsert", "upsert", "upsert"]


def test_failures_of_both_kinds_are_reported_in_stream_order(indexer, index):
    # Given a batch whose first change cannot be read and whose last the index refuses
    bad = record_image(make_record("rec_1"))
    bad["doc"] = {"S": "not json"}
    index.refused.add("rec_3")
    changes = [
        change("INSERT", new=bad),
        change("INSERT", new=record_image(make_record("rec_2"))),
        change("INSERT", new=record_image(make_record("rec_3"))),
    ]
    response = indexer.process(batch(*changes))
    # Then both are reported, lowest sequence first (Lambda resumes from the lowest)
    assert response == {
        "batchItemFailures": [
            {"itemIdentifier": changes[0]["dynamodb"]["SequenceNumber"]},
            {"itemIdentifier": changes[2]["dynamodb"]["SequenceNumber"]},
        ]
    }
    assert index.get("rec_2") is not None


def test_a_batch_the_index_refuses_whole_raises_so_lambda_retries_it(indexer, index):
    index.refused.update({"rec_1", "rec_2"})
    changes = [change("INSERT", new=record_image(make_record(f"rec_{i}"))) for i in (1, 2)]
    with pytest.raises(StorageUnavailable):
        indexer.process(batch(*changes))
    assert index.docs == {}


def test_an_older_version_replayed_later_does_not_overwrite_the_newer(indexer, index):
    v1 = record_image(make_record(version=1))
    v2 = record_image(make_record(version=2, status=RecordStatus.SUPERSEDED, replaced_by="rec_9"))
    # Given version 2 indexed
    indexer.process(batch(change("MODIFY", new=v2, old=v1)))
    # When the change to version 1 arrives afterwards (a retried or replayed batch)
    response = indexer.process(batch(change("INSERT", new=v1)))
    # Then version 2 stays
    assert response == {"batchItemFailures": []}
    assert (index.get("rec_1").version, index.get("rec_1").status) == (2, "SUPERSEDED")


def test_the_same_batch_twice_leaves_the_same_index(indexer, index):
    event = batch(change("INSERT", new=record_image(make_record())))
    indexer.process(event)
    first = dict(index.docs)
    indexer.process(event)
    assert index.docs == first


def test_only_the_last_change_of_an_item_in_a_batch_is_applied(indexer, index, embedder):
    v1 = record_image(make_record(version=1))
    v2 = record_image(make_record(version=2, summary="Releases ship on Thursdays"))
    response = indexer.process(batch(change("INSERT", new=v1), change("MODIFY", new=v2, old=v1)))
    assert response == {"batchItemFailures": []}
    assert index.get("rec_1").version == 2
    assert index.writes == 1
    assert len(embedder.texts) == 1


def test_a_removed_record_head_is_deleted_from_the_index(indexer, index):
    image = record_image(make_record())
    indexer.process(batch(change("INSERT", new=image)))
    response = indexer.process(batch(change("REMOVE", old=image)))
    assert response == {"batchItemFailures": []}
    assert index.get("rec_1") is None


def test_a_record_head_purged_by_dynamodbs_ttl_leaves_the_index_and_is_told(index, embedder):
    """An expired record's purge: DynamoDB's TTL deletes the head (a REMOVE by the service
    itself, userIdentity dynamodb.amazonaws.com); the stream takes its document out and tells
    `on_purged` (the audit trail), which a caller's delete does not."""
    purged: list[str] = []
    indexer = StreamIndexer(index, embedder, on_purged=lambda record: purged.append(record.id))
    for record_id in ("rec_1", "rec_2"):
        image = record_image(make_record(record_id, expires_at=T0))
        indexer.process(batch(change("INSERT", new=image)))
    by_ttl = change("REMOVE", old=record_image(make_record("rec_1", expires_at=T0)))
    by_ttl["userIdentity"] = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
    by_caller = change("REMOVE", old=record_image(make_record("rec_2", expires_at=T0)))

    response = indexer.process(batch(by_ttl, by_caller))

    assert response == {"batchItemFailures": []}
    assert index.get("rec_1") is None and index.get("rec_2") is None
    assert purged == ["rec_1"]


def test_items_that_are_not_heads_are_ignored(indexer, index, embedder):
    version_item = record_image(make_record())
    version_item["pk"] = {"S": "T#t1#A#teams/web#R#rec_1"}
    version_item["sk"] = {"S": "V#00000001"}
    agent_counter = {"pk": {"S": "T#t1#A#R"}, "sk": {"S": "FCOUNT"}, "memories": {"N": "3"}}
    turn = {"pk": {"S": "T#t1#A#teams/web#S#R"}, "sk": {"S": "TURN#turn_1"}}
    response = indexer.process(
        batch(
            change("INSERT", new=version_item),
            change("MODIFY", new=agent_counter),
            change("INSERT", new=turn),
        )
    )
    assert response == {"batchItemFailures": []}
    assert index.docs == {}
    assert embedder.texts == []


def test_file_heads_are_indexed_and_removed(indexer, index):
    content = "---\ndescription: how we deploy\n---\nShip on Fridays. Never on Mondays.\n"
    image = file_image("/memories/deploy#notes.md", content, version=3)
    indexer.process(batch(change("INSERT", new=image)))
    doc = index.get("/memories/deploy#notes.md", kind="file")
    assert doc is not None
    micros = int(T0.timestamp() * 1_000_000)  # the last change's time, as embedded
    assert (doc.kind, doc.version, doc.scope, doc.created_at) == ("file", micros, "agent", T0)
    assert doc.text == f"/memories/deploy#notes.md\n{content}"
    assert doc.vector is not None
    indexer.process(batch(change("REMOVE", old=image)))
    assert index.get("/memories/deploy#notes.md", kind="file") is None


def test_a_long_text_is_indexed_whole_and_embedded_by_its_beginning(indexer, index, embedder):
    long = make_record(content="word " * 30_000)
    indexer.process(batch(change("INSERT", new=record_image(long))))
    assert len(index.get("rec_1").text) > EMBED_MAX_CHARS
    assert [len(t) for t in embedder.texts] == [EMBED_MAX_CHARS]


def test_without_an_embedder_records_are_indexed_by_words_only(index):
    StreamIndexer(index, None).process(batch(change("INSERT", new=record_image(make_record()))))
    doc = index.get("rec_1")
    assert (doc.vector, doc.model_id) == (None, None)


# -- the handler module ---------------------------------------------------------------------


def load_handler(name: str):
    spec = importlib.util.spec_from_file_location(name, HANDLER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_handler_wires_itself_from_the_environment_at_cold_start(monkeypatch):
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "eu-west-1",
        "AGENT_MEMORY_EMBEDDINGS": "bedrock",
        "AGENT_MEMORY_OPENSEARCH_ENDPOINT": "https://abc.eu-west-1.aoss.amazonaws.com",
        "AGENT_MEMORY_OPENSEARCH_INDEX": "memories",
        "AGENT_MEMORY_BEDROCK_EMBEDDING_DIMENSIONS": "512",
    }.items():
        monkeypatch.setenv(name, value)
    module = load_handler("indexer_app_cold_start")
    # Wired by bootstrap from the one Settings, as every function is.
    assert isinstance(module.indexer, StreamIndexer)
    settings = module.settings
    assert (settings.opensearch_index, settings.bedrock_embedding_dimensions, settings.region) == (
        "memories",
        512,
        "eu-west-1",
    )
    assert module.indexer._embedder.model_id == "amazon.titan-embed-text-v2:0"
    assert module.indexer._embedder.dimensions == 512


def test_the_handler_fails_at_cold_start_without_an_endpoint(monkeypatch):
    monkeypatch.delenv("AGENT_MEMORY_OPENSEARCH_ENDPOINT", raising=False)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    with pytest.raises(ValueError, match="AGENT_MEMORY_OPENSEARCH_ENDPOINT"):
        load_handler("indexer_app_no_endpoint")


def test_large_events_are_read_through_the_blob_adapter_and_its_error_mapping(monkeypatch):
    from agent_memory.cloud_workers import build_indexer
    from agent_memory.settings import Settings

    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "eu-west-1",
        "AGENT_MEMORY_EMBEDDINGS": "none",
        "AGENT_MEMORY_OPENSEARCH_ENDPOINT": "https://abc.eu-west-1.aoss.amazonaws.com",
    }.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    with mock_aws():
        s3 = boto3.client("s3", region_name="eu-west-1")
        s3.create_bucket(
            Bucket="history", CreateBucketConfiguration={"LocationConstraint": "eu-west-1"}
        )
        s3.put_object(Bucket="history", Key="history/a.json", Body=b'{"kept": true}')
        fetch = build_indexer(settings)._fetch
        assert fetch("history", "history/a.json") == '{"kept": true}'
        # A missing object is the store's StorageUnavailable (a failed record of the batch),
        # not botocore's own error.
        with pytest.raises(StorageUnavailable):
            fetch("history", "history/gone.json")


def history_event(text: str, searchable: bool = True):
    from agent_memory.domain.history.models import HistoryEvent

    return HistoryEvent(
        tenant="t1",
        agent_id="teams/web",
        session_id="ses_1",
        turn_id="trn_1",
        turn_sequence=3,
        id="evt_1",
        sequence=1,
        role="user",
        text=text,
        time=T0,
        searchable=searchable,
    )


def event_image(text: str, blob: bool = False, searchable: bool = True) -> dict:
    from agent_memory.adapters.dynamodb.history_items import EventItem

    event = history_event(text, searchable)
    image = EventItem.of("t1", "teams/web", "ses_1", event).serialize()
    if blob:
        image.pop("doc", None)
        image["blob_bucket"] = {"S": "history-bucket"}
        image["blob_key"] = {"S": "history/t1/teams%2Fweb/ses_1/evt_1.x.json"}
    return image


def test_history_events_are_indexed_in_parts_and_removed(indexer, index, embedder):
    long_text = " ".join(f"w{i}" for i in range(450))
    response = indexer.process(batch(change("INSERT", new=event_image(long_text))))
    assert response == {"batchItemFailures": []}
    parts = sorted(k[3] for k in index.docs if k[2] == "event")
    assert parts == ["evt_1.1", "evt_1.2", "evt_1.3"]
    doc = index.get("evt_1.1", kind="event")
    assert (doc.session_id, doc.scope, doc.turn_sequence) == ("ses_1", "session", 3)
    # The first part holds the whole event's words (without its turn heading); the others none.
    assert doc.text == long_text
    assert index.get("evt_1.3", kind="event").text == ""
    assert doc.vector is not None
    indexer.process(batch(change("REMOVE", old=event_image(long_text))))
    assert [k for k in index.docs if k[2] == "event"] == []


def test_an_event_kept_only_for_extraction_is_never_indexed(indexer, index):
    # Without harness.history.index, messages are kept for post-turn extraction alone.
    response = indexer.process(batch(change("INSERT", new=event_image("hi", searchable=False))))
    assert response == {"batchItemFailures": []}
    assert [k for k in index.docs if k[2] == "event"] == []


def test_an_events_meaning_is_embedded_with_the_message_before_it(index, embedder):
    seen = []

    def before(event):
        seen.append(event.id)
        return ["Sam: the review is on Monday.", "Alex: when do we ship?"]

    indexer = StreamIndexer(index, embedder, before=before)
    indexer.process(batch(change("INSERT", new=event_image("Tuesdays, after the review."))))
    assert seen == ["evt_1"]
    # Its words are indexed as said, with the two messages before it as its context; its
    # vector is of its words (no heading) and of what they answer.
    doc = index.get("evt_1.1", kind="event")
    assert doc.text == "Tuesdays, after the review."
    assert doc.context == "Sam: the review is on Monday.\nAlex: when do we ship?"
    assert embedder.texts == [
        "Tuesdays, after the review.\n(after: Sam: the review is on Monday. / Alex: when do we ship?)"
    ]


def test_without_an_embedder_an_event_still_gets_the_words_said_before_it(index):
    indexer = StreamIndexer(index, None, before=lambda event: ["Alex: when do we ship?"])
    indexer.process(batch(change("INSERT", new=event_image("Tuesdays."))))
    doc = index.get("evt_1.1", kind="event")
    assert (doc.context, doc.vector) == ("Alex: when do we ship?", None)


def test_a_history_event_kept_in_s3_is_read_from_there(index, embedder):
    import json as _json

    held = history_event("from the bucket")
    reads = []

    def fetch(bucket: str, key: str) -> str:
        reads.append((bucket, key))
        return _json.dumps(held.to_doc())

    indexer = StreamIndexer(index, embedder, fetch=fetch)
    indexer.process(batch(change("INSERT", new=event_image("ignored", blob=True))))
    assert reads == [("history-bucket", "history/t1/teams%2Fweb/ses_1/evt_1.x.json")]
    assert index.get("evt_1.1", kind="event").text == "from the bucket"


@pytest.mark.parametrize("one_batch", [True, False])
def test_a_memory_deleted_and_created_again_is_indexed_anew(indexer, index, one_batch):
    # Created again, it starts again at version 1: below the old copy's 3, the new content
    # was once kept out of the index (and, in one batch, the delete was skipped as replaced).
    old = file_image("/memories/deploy.md", "ship on fridays", version=3)
    new = file_image("/memories/deploy.md", "ship on tuesdays", at=T0.replace(hour=T0.hour + 1))
    indexer.process(batch(change("INSERT", new=old)))
    removed, created = change("REMOVE", old=old), change("INSERT", new=new)
    for each in [(removed, created)] if one_batch else [(removed,), (created,)]:
        indexer.process(batch(*each))
    assert "tuesdays" in index.get("/memories/deploy.md", kind="file").text


def test_a_memory_whose_path_outgrows_its_key_is_removed_by_its_path(indexer, index):
    # 500 three-byte characters: the item's sort key keeps a cut path and a digest; the
    # document is named by the whole path, which the removal must name too.
    path = "/memories/" + "文" * 490 + ".md"
    image = file_image(path, "notes")
    indexer.process(batch(change("INSERT", new=image)))
    assert index.get(path, kind="file") is not None
    indexer.process(batch(change("REMOVE", old=image)))
    assert index.get(path, kind="file") is None


def test_a_history_event_kept_in_s3_leaves_no_part_when_removed(index, embedder):
    import json as _json

    long_text = " ".join(f"word{i}" for i in range(400))  # several parts
    held = history_event(long_text)
    indexer = StreamIndexer(index, embedder, fetch=lambda b, k: _json.dumps(held.to_doc()))
    image = event_image(long_text, blob=True)
    indexer.process(batch(change("INSERT", new=image)))
    parts = len(held.parts)
    assert parts > 1 and index.get(f"evt_1.{parts}", kind="event") is not None
    # Removed (its agent deleted): the item holds no text, its S3 object may be gone.
    indexer.process(batch(change("REMOVE", old=image)))
    assert all(index.get(f"evt_1.{n}", kind="event") is None for n in range(1, parts + 1))


def test_each_embedding_is_kept_as_usage_on_its_agent_and_turn(index, embedder):
    # In the cloud most embeddings are the indexer's: each is usage of purpose embed, on the
    # turn that wrote a record or an event, on the agent alone for a memory; one write an agent.
    kept = []
    indexer = StreamIndexer(index, embedder, add_usage=lambda t, a, rows: kept.append((t, a, rows)))
    indexer.process(
        batch(
            change("INSERT", new=record_image(make_record())),
            change("INSERT", new=file_image("/memories/deploy.md", "ship on fridays")),
            change("INSERT", new=event_image("we ship on fridays")),
        )
    )
    [(tenant, agent_id, rows)] = kept
    assert (tenant, agent_id) == ("t1", "teams/web")
    assert [(r.purpose, r.model_id, r.input_tokens) for r in rows] == [
        ("embed", "fake-embed-v1", 1)
    ] * 3
    assert [(r.session_id, r.turn_id) for r in rows] == [
        ("ses_1", "turn_1"),
        (None, None),
        ("ses_1", "trn_1"),
    ]


def test_usage_that_cannot_be_kept_fails_no_document(index, embedder):
    def refuse(tenant, agent_id, rows):
        raise RuntimeError("the agent was deleted meanwhile")

    indexer = StreamIndexer(index, embedder, add_usage=refuse)
    response = indexer.process(batch(change("INSERT", new=record_image(make_record()))))
    assert response == {"batchItemFailures": []}
    assert index.get("rec_1", kind="record") is not None


def test_the_handler_indexes_into_s3_vectors_when_the_stack_says_so(monkeypatch):
    from agent_memory.adapters.dynamodb.entity_links import DynamoEntityLinks
    from agent_memory.adapters.s3vectors.index import S3VectorsIndex
    from agent_memory.domain.search.links import LinkedIndex

    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "eu-west-1",
        "AGENT_MEMORY_SEARCH_BACKEND": "s3-vectors",
        "AGENT_MEMORY_S3VECTORS_BUCKET": "arn:aws:s3vectors:eu-west-1:123456789012:bucket/vec",
        "AGENT_MEMORY_TABLE_NAME": "agent-memory",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AGENT_MEMORY_OPENSEARCH_ENDPOINT", raising=False)
    module = load_handler("indexer_app_s3_vectors")
    # The index it writes keeps entity links in the table beside it.
    assert isinstance(module.indexer._index, LinkedIndex)
    assert isinstance(module.indexer._index.inner, S3VectorsIndex)
    assert isinstance(module.indexer._index.links, DynamoEntityLinks)


def test_the_handler_fails_at_cold_start_with_s3_vectors_but_no_bucket(monkeypatch):
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("AGENT_MEMORY_SEARCH_BACKEND", "s3-vectors")
    monkeypatch.setenv("AGENT_MEMORY_TABLE_NAME", "agent-memory")
    monkeypatch.delenv("AGENT_MEMORY_S3VECTORS_BUCKET", raising=False)
    with pytest.raises(ValidationError, match="S3VECTORS_BUCKET"):
        load_handler("indexer_app_no_bucket")
