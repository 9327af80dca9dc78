"""Contract of what an import needs of a store and an index, on every adapter: ReviewMarks on
SqliteStore and DynamoStore (how far an imported session's reviews had read), the store ports an
import writes through taking entities as given (versions and timestamps kept, not re-stamped),
and SearchIndex.stored_vectors on the indexes that can read their vectors back."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

import pytest
from index_model import INDEX_MODEL

from agent_memory.domain.files.models import FileVersion, FileWrite
from agent_memory.domain.files.plan import file_head
from agent_memory.domain.kernel.errors import NotFound
from agent_memory.domain.kernel.models import Session, TurnStatus
from agent_memory.domain.records.models import RecordOperation, RecordVersion, RecordWrite
from agent_memory.domain.search.index import SearchIndex
from agent_memory.domain.store import Store
from index_docs import doc

if TYPE_CHECKING:
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]
AGENT = "teams/web"


def test_restore_reviewed_flags_turns_and_moves_the_mark_only_up(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given a session with two ended turns no review has read
    session = agent_with_session()
    for n in (1, 2):
        turn = build.turn(session, n, f"trn_{n:04d}").model_copy(update={"preview": False})
        store.begin_turn(turn)
        store.end_turn(turn, TurnStatus.COMMITTED, build.now)
    # When the first is flagged reviewed and the mark set to 2, then set to 1
    store.restore_reviewed("acme", AGENT, session.id, 2, ["trn_0001"])
    store.restore_reviewed("acme", AGENT, session.id, 1, ["trn_0001"])
    # Then the first turn is reviewed, the second not, and the mark stays at 2
    got = store.get_session("acme", AGENT, session.id)
    assert got is not None and got.reviewed_through == 2
    turns = store.list_turns("acme", AGENT, session.id)
    assert [t.reviewed for t in turns] == [True, False]


def test_restore_reviewed_of_a_missing_session_or_turn_is_not_found_and_changes_nothing(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given a session without turns
    session = agent_with_session()
    # When a missing session is marked, or a missing turn flagged, then NotFound
    with pytest.raises(NotFound):
        store.restore_reviewed("acme", AGENT, "ses_none", 3, [])
    with pytest.raises(NotFound):
        store.restore_reviewed("acme", AGENT, session.id, 3, ["trn_none"])
    # And the mark did not move with the refused flag
    got = store.get_session("acme", AGENT, session.id)
    assert got is not None and got.reviewed_through == 0


def test_a_record_written_with_its_whole_history_keeps_it_as_given(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given three versions of a record made a day ago, by a turn
    agent_with_session()
    first = build.record("rec_1").model_copy(update={"created_at": build.now - timedelta(days=1)})
    states = [
        first.model_copy(update={"version": n, "updated_at": first.created_at + timedelta(hours=n)})
        for n in (1, 2, 3)
    ]
    ops = [RecordOperation.CREATE, RecordOperation.SET_EXPIRY, RecordOperation.SET_EXPIRY]
    versions = [
        RecordVersion(record=s, operation=op, changed_by=s.provenance, at=s.updated_at)
        for s, op in zip(states, ops, strict=True)
    ]
    # When the first two are written as a new record, then the third after them
    store.write_records("acme", AGENT, [RecordWrite(record=states[1], expected_version=None,
                                                    versions=versions[:2])])  # fmt: skip
    store.write_records("acme", AGENT, [RecordWrite(record=states[2], expected_version=2,
                                                    versions=versions[2:])])  # fmt: skip
    # Then the head and every version read back as given: nothing re-stamped
    assert store.get_records("acme", AGENT, ["rec_1"]) == [states[2]]
    assert store.record_versions("acme", AGENT, "rec_1", 10, None) == versions[::-1]


def test_a_path_written_with_its_history_and_removed_keeps_its_versions(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given two versions of a memory made an hour ago
    agent_with_session()
    at = build.now - timedelta(hours=1)
    versions = [
        FileVersion(
            id=f"fv_{n}",
            agent_id=AGENT,
            path="/memories/a.md",
            operation=op,
            actor="app",
            version=n,
            content=f"v{n}",
            at=at + timedelta(minutes=n),
        )  # fmt: skip
        for n, op in ((1, "create"), (2, "update"))
    ]
    head = file_head("acme", AGENT, "/memories/a.md", "v2", 2, versions[1].at, "app")
    # When they are written with the head they left, and the head then removed
    store.write_files("acme", AGENT, [FileWrite(path=head.path, head=head, expected_version=None,
                                                versions=versions, count_delta=1)], 10)  # fmt: skip
    store.write_files("acme", AGENT, [FileWrite(path=head.path, head=None, expected_version=2,
                                                versions=[], count_delta=-1)], 10)  # fmt: skip
    # Then no memory has the path, and its versions read back as given
    assert store.get_file("acme", AGENT, head.path) is None
    assert store.count_files("acme", AGENT) == 0
    assert store.file_versions("acme", AGENT, head.path, 10, None) == versions[::-1]


def test_stored_vectors_reads_back_each_documents_vector_and_model(
    search_index: SearchIndex,
) -> None:
    if type(search_index).__name__ == "S3VectorsIndex":
        # Given the index that cannot read its vectors back, then it answers none
        search_index.upsert([doc("r1", "alpha", vector=[1.0, 0.0, 0.0], model_id=INDEX_MODEL)])
        assert search_index.stored_vectors("t1", AGENT, "record", ["r1"]) == {}
        return
    # Given a document with a vector, one without, and one of another kind
    search_index.upsert(
        [
            doc("r1", "alpha", vector=[0.6, 0.8, 0.0], model_id=INDEX_MODEL),
            doc("r2", "beta"),
            doc("r1", "gamma", kind="file", vector=[0.0, 0.0, 1.0], model_id=INDEX_MODEL),
        ]
    )
    # When their vectors are read back
    found = search_index.stored_vectors("t1", AGENT, "record", ["r1", "r2", "r3"])
    # Then the record with a vector is there with its model, and nothing else
    assert list(found) == ["r1"]
    values, model = found["r1"]
    assert model == INDEX_MODEL
    assert values == pytest.approx([0.6, 0.8, 0.0], abs=1e-6)
