"""A consolidation against a live agent, on both stores: turns adding twins and replacing
records while a run works lose none of their acknowledged writes; what changed under the run is
left alone by it and reported as skipped. Repeated: the interleaving differs each round."""

import threading
from typing import Any

import pytest
from moto.core.botocore_stubber import BotocoreStubber
from test_api_records import A, Turn, manifest, session

pytestmark = pytest.mark.integration

NAMES = ["Ann", "Bob", "Cara", "Dev", "Eli", "Fay", "Gus", "Hal", "Ida"]


@pytest.fixture
def serialised(monkeypatch):
    """Each mocked DynamoDB request applied atomically, as DynamoDB applies a transaction (moto
    applies one item at a time; tests/contract/conftest.py says more)."""
    lock = threading.Lock()
    process = BotocoreStubber.process_request

    def one_at_a_time(self: BotocoreStubber, request: Any) -> Any:
        with lock:
            return process(self, request)

    monkeypatch.setattr(BotocoreStubber, "process_request", one_at_a_time)


def committed(api, summary):
    turn = Turn(api, session(api))
    made = turn.add(summary, scope="agent")
    turn.commit()
    return made


def versions(api, record_id):
    return api.ok("GET", f"{A}/-/records/{record_id}/versions", limit=200)["versions"]


@pytest.mark.parametrize("round_", range(10))
def test_turns_racing_a_consolidation_lose_no_acknowledged_write(api, serialised, round_):
    # Given an agent holding twins of each person's fact
    api.ok("PUT", A, manifest(), expect=201)
    seeded = {}
    for name in NAMES:
        seeded[name] = [
            committed(api, f"{name} likes tea"),
            committed(api, f"{name} likes tea a lot"),
        ]
    acknowledged: list[tuple[str, dict, dict | None]] = []  # (what, made, replaced)
    refused: list[tuple[int, Any]] = []
    runs: list[dict] = []
    start = threading.Barrier(4)

    def writer(names):
        start.wait()
        for i, name in enumerate(names):
            old = seeded[name][i % 2]
            turn = Turn(api, session(api))
            if i % 2:  # another twin
                made = turn.add(f"{name} likes tea so much", scope="agent")
                replaced = None
            else:  # a correction of one of the twins
                status, body = turn.call(
                    "add_memory", summary=f"{name} likes coffee", scope="agent", replaces=old["id"]
                )
                if status != 200:
                    refused.append((status, body))
                    turn.rollback()
                    continue
                made, replaced = body["output"]["memories"][0], old
            status, body = api.call("POST", f"{turn.path}/commit")
            if status == 200:
                acknowledged.append(("replace" if replaced else "add", made, replaced))
            else:
                refused.append((status, body))

    def consolidator():
        start.wait()
        runs.append(api.ok("POST", f"{A}/-/consolidate"))

    threads = [threading.Thread(target=writer, args=(NAMES[k::3],)) for k in range(3)]
    threads.append(threading.Thread(target=consolidator))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    # Then a refused write was refused cleanly (its record changed first), never a 5xx
    assert all(status == 409 for status, _ in refused), refused
    assert acknowledged, "no turn committed"
    (run,) = runs
    # Every acknowledged write stands: its record exists as the turn made it. A record it
    # replaced is SUPERSEDED by it, unless the run had superseded that record first: then the
    # commit keeps replaces/replacedBy paired (records/plan.py) and the turn's record stands
    # on its own, as with any two writers replacing one record
    for what, made, replaced in acknowledged:
        history = versions(api, made["id"])
        assert history[-1]["operation"] == "create"
        assert history[-1]["record"]["summary"] == made["summary"]
        if replaced is None:
            continue
        old = api.ok("GET", f"{A}/-/records/{replaced['id']}")
        new = api.ok("GET", f"{A}/-/records/{made['id']}")
        assert old["status"] == "SUPERSEDED", (what, old)
        if old["replacedBy"] == made["id"]:
            assert new["replaces"] == replaced["id"]
        else:
            assert new["replaces"] is None
            first = versions(api, replaced["id"])[0]
            assert first["changedBy"]["triggerRunId"] == run["id"], first
    # No version was ever written over: each record's versions run 1..n without a gap
    for name in NAMES:
        for record in seeded[name]:
            numbers = [v["record"]["version"] for v in versions(api, record["id"])]
            assert numbers == list(range(len(numbers), 0, -1)), numbers
    # The run wrote exactly what it did not skip, each on the version it had read
    for action in run["actions"]:
        mine = [
            v
            for v in versions(api, action["recordId"])
            if v["changedBy"].get("triggerRunId") == run["id"]
        ]
        if action["skipped"] is None:
            assert [v["record"]["version"] for v in mine] == [action["version"] + 1], action
        else:
            assert mine == [], action
    counted = run["counts"]
    assert counted["skipped"] == sum(a["skipped"] is not None for a in run["actions"])
    assert counted["merged"] + counted["superseded"] + counted["skipped"] == len(run["actions"])
