"""What each operation sends to AWS in the cloud shape, held: counted under moto by
tests/aws_meter.py on the wiring of tests/cloud_shape.py (the API and indexer functions, an
OpenSearch index on osmem-server, Bedrock answered by the meter). The whole table is
benchmarks/aws_calls.py's (benchmarks/RESULTS.md); these are the counts the cost model rests on.
"""

from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.integration

pytest.importorskip("osmem_server", reason="osmem-server (dev extra) is not installed")

A = "/v1/agents/teams/costs"
CALLER = {"role": "agent"}


def manifest(mode: str = "hybrid") -> dict:
    return {
        "harness": {
            "memory": {
                "enabled": True,
                "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
                "tools": ["add_memory", "read_memory", "delete_memory"],
                "search": {"mode": mode},
            },
            "history": {"index": "messages"},
        }
    }


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    from cloud_shape import cloud_shape

    with cloud_shape(tmp_path_factory.mktemp("cloud")) as shape:
        shape.api.ok("PUT", A, manifest(), expect=201)
        shape.session = shape.api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
        shape.seen = []  # every tally taken, for the checks that hold across operations
        yield shape


def measure(cloud, run):
    cloud.meter.take()
    run()
    tally = cloud.meter.take()
    cloud.seen.append(tally)
    return tally


def begin(cloud) -> str:
    turn = cloud.api.ok("POST", f"{A}/-/sessions/{cloud.session}/turns", expect=201)["id"]
    return f"{A}/-/sessions/{cloud.session}/turns/{turn}"


def events(n: int, word: str = "deploy") -> dict:
    return {"events": [{"role": "user", "text": f"{word} step {i} runs"} for i in range(n)]}


def tool(cloud, turn: str, name: str, **args):
    return cloud.api.ok("POST", f"{turn}/tools/{name}", {**args, "caller": CALLER})["output"]


@pytest.mark.parametrize("k", [0, 1, 24])  # 24: the most memories a turn writes
def test_a_commit_is_one_transaction_whatever_it_writes(cloud, k):
    turn = begin(cloud)
    cloud.api.ok("POST", f"{turn}/events", events(3))
    for i in range(k):
        tool(cloud, turn, "add_memory", summary=f"fact {k}-{i} about the canary", scope="agent")
    cloud.meter.take_stream()

    tally = measure(cloud, lambda: cloud.api.ok("POST", f"{turn}/commit"))

    writes = tally.count("dynamodb.TransactWriteItems") + tally.count("dynamodb.UpdateItem")
    assert writes == 1
    # DynamoDB takes at most 100 items a transaction: the commit's items would need more.
    assert tally.count("dynamodb.TransactWriteItems") == math.ceil(sum(tally.transact_items) / 100)
    assert tally.count("stepfunctions.StartExecution") == 1  # the turn's review
    # memory.updated and agent.memory_updated for each call that changed memory, ten an
    # PutEvents (its most).
    assert tally.event_entries == 2 * k
    assert tally.count("events.PutEvents") == math.ceil(2 * k / 10)
    # Nothing reaches OpenSearch or Bedrock on the request: the stream indexer does that.
    assert not tally.opensearch and tally.count("bedrock-runtime.InvokeModel") == 0
    # Each record is its head and its first version, written at 2 units a KB transactionally.
    assert tally.write_units >= 4 * k


@pytest.mark.parametrize("n", [1, 10])
def test_appending_events_is_one_write_whatever_their_number(cloud, n):
    turn = begin(cloud)
    tally = measure(cloud, lambda: cloud.api.ok("POST", f"{turn}/events", events(n)))
    assert tally.count("dynamodb.TransactWriteItems") == 1
    assert not tally.opensearch


# Not vector mode: osmem-server has no k-NN, so the meter answers k-NN searches with no hits, and
# a search that finds nothing reads nothing back.
@pytest.mark.parametrize(("mode", "knn", "embeds"), [("hybrid", 1, 1), ("lexical", 0, 0)])
def test_a_search_is_one_query_a_half_and_one_batch_read(cloud, mode, knn, embeds):
    """The lexical half is two requests: the agent's word statistics, then the candidates
    (adapters/opensearch/bm25.py: BM25 with the agent's own statistics, never the index's)."""
    cloud.api.ok("PUT", A, manifest(mode))
    turn = begin(cloud)
    tool(cloud, turn, "add_memory", summary="The canary deploy runs on Tuesday", scope="agent")
    cloud.api.ok("POST", f"{turn}/commit")
    cloud.index_stream()
    turn = begin(cloud)

    tally = measure(
        cloud, lambda: tool(cloud, turn, "search_memory", query="when does the canary deploy")
    )

    assert tally.opensearch["knn"] == knn
    assert (tally.opensearch["statistics"], tally.opensearch["search"]) == (1, 1)
    assert tally.count("bedrock-runtime.InvokeModel") == embeds
    # The hits are re-checked against the store in one read, not one read a hit.
    assert tally.count("dynamodb.BatchGetItem") == 1
    cloud.api.ok("PUT", A, manifest())


def test_search_history_is_one_query_a_half_and_reads_in_batches(cloud):
    turn = begin(cloud)
    cloud.api.ok("POST", f"{turn}/events", events(5, "rollback"))
    cloud.api.ok("POST", f"{turn}/commit")
    cloud.index_stream()
    turn = begin(cloud)

    tally = measure(cloud, lambda: tool(cloud, turn, "search_history", query="rollback step"))

    assert tally.opensearch["statistics"] == 1  # the lexical half's own BM25 statistics
    assert (tally.opensearch["search"], tally.opensearch["knn"]) == (1, 1)
    assert tally.count("bedrock-runtime.InvokeModel") == 1
    assert tally.count("dynamodb.GetItem") + tally.count("dynamodb.Query") <= 10
    assert tally.count("dynamodb.BatchGetItem") <= 2  # the events by id, then their turns


def test_the_indexer_embeds_each_document_once_and_writes_the_batch_together(cloud):
    turn = begin(cloud)
    cloud.api.ok("POST", f"{turn}/events", events(4, "invoice"))
    for i in range(3):
        tool(cloud, turn, "add_memory", summary=f"invoice rule {i}", scope="agent")
    cloud.api.ok("POST", f"{turn}/commit")

    tally = measure(cloud, cloud.index_stream)

    # 4 events and 3 records: one embedding each, and nothing else embedded.
    assert tally.count("bedrock-runtime.InvokeModel") == 7
    assert tally.bulk_items == 7
    # Written together: one search for stored copies and one bulk request for the batch.
    assert (tally.opensearch["copies"], tally.opensearch["bulk"]) == (1, 1)
    # The batch's embedding usage: one transaction for the agent.
    assert tally.count("dynamodb.TransactWriteItems") == 1


def test_a_file_get_is_two_reads_and_writes_nothing(cloud):
    put = measure(
        cloud, lambda: cloud.api.ok("PUT", f"{A}/-/memories/n.md", {"content": "# n\n"}, expect=201)
    )
    assert put.count("dynamodb.TransactWriteItems") == 1 and put.event_entries == 1

    got = measure(cloud, lambda: cloud.api.ok("GET", f"{A}/-/memories/n.md"))
    assert got.count("dynamodb.GetItem") == 2 and sum(got.calls.values()) == 2
    assert got.write_units == 0


def test_a_fork_reads_the_memories_it_copies_in_one_query_not_one_read_each(cloud):
    reads = []
    for n in (1, 4):
        source = f"/v1/agents/teams/forked-{n}"
        cloud.api.ok("PUT", source, manifest(), expect=201)
        for i in range(n):
            cloud.api.ok("PUT", f"{source}/-/memories/m{i}.md", {"content": f"# {i}\n"}, expect=201)
        fork = measure(
            cloud,
            lambda s=source, n=n: cloud.api.ok(
                "POST", f"{s}/-/fork", {"id": f"teams/fork-copy-{n}"}, expect=201
            ),
        )
        reads.append(fork.count("dynamodb.GetItem") + fork.count("dynamodb.Query"))
    assert reads[0] == reads[1]


def test_no_operation_scans_the_table(cloud):
    turn = begin(cloud)
    measure(
        cloud,
        lambda: tool(cloud, turn, "memory", command="create", path="/memories/x.md", file_text="x"),
    )
    measure(cloud, lambda: cloud.api.ok("POST", f"{turn}/recall", {"context": "user: deploy?"}))
    measure(cloud, lambda: cloud.api.ok("POST", f"{turn}/commit"))
    measure(
        cloud, lambda: cloud.api.ok("POST", f"{A}/-/fork", {"id": "teams/costs-copy"}, expect=201)
    )
    measure(cloud, cloud.index_stream)
    deleted = measure(cloud, lambda: cloud.api.call("DELETE", "/v1/agents/teams/costs-copy"))
    measure(cloud, cloud.index_stream)

    assert deleted.count("dynamodb.Query") > 0  # it walked the agent's partitions
    # Every operation measured on this shape, this test's and the ones before it.
    assert all(t.count("dynamodb.Scan") == 0 for t in cloud.seen)
