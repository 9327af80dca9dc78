"""The commit planner on its own: staged writes and the heads read in, store writes and the
changes to publish out, with no store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from agent_memory.domain.files import plan as file_plan
from agent_memory.domain.files.models import FileMemory
from agent_memory.domain.files.plan import MemoryConflict
from agent_memory.domain.kernel.errors import Conflict
from agent_memory.domain.kernel.models import Turn
from agent_memory.domain.records import plan as record_plan
from agent_memory.domain.records.models import Provenance, Record, RecordOperation, RecordStatus
from agent_memory.domain.turns.effects import (
    FileChange,
    FileChangeEffect,
    FileChangeItem,
    FileStamp,
    RecordAdd,
    RecordAddEffect,
    RecordDelete,
    RecordDeleteEffect,
)

pytestmark = pytest.mark.unit

EARLIER = datetime(2026, 11, 1, tzinfo=UTC)
NOW = datetime(2026, 12, 1, tzinfo=UTC)
BY = Provenance(actor="agent:a1@1", turn_id="trn_1")


def record(record_id: str, **fields: Any) -> Record:
    values: dict[str, Any] = {
        "tenant": "t1",
        "agent_id": "a1",
        "id": record_id,
        "scope": "agent",
        "summary": f"summary of {record_id}",
        "kind": "fact",
        "provenance": BY,
        "created_at": EARLIER,
        "updated_at": EARLIER,
        **fields,
    }
    return Record(**values)


def add(new: Record, sequence: int = 1) -> RecordAddEffect:
    return RecordAddEffect(
        effect_id=f"e{sequence}", turn_id="trn_1", sequence=sequence, payload=RecordAdd(record=new)
    )


def delete(record_id: str, sequence: int = 1) -> RecordDeleteEffect:
    payload = RecordDelete(id=record_id, target_bytes=100, by=BY)
    return RecordDeleteEffect(
        effect_id=f"e{sequence}", turn_id="trn_1", sequence=sequence, payload=payload
    )


# -- records ----------------------------------------------------------------------------------


def test_an_add_is_a_new_record_at_version_one() -> None:
    new = record("rec_new")
    plan = record_plan.plan_records([add(new)], {}, NOW)

    (write,) = plan.writes
    assert write.expected_version is None and write.index is None
    assert write.record == new.model_copy(update={"created_at": NOW, "updated_at": NOW})
    assert [v.operation for v in write.versions] == [RecordOperation.CREATE]
    assert plan.created == [write.record] and plan.restated == []
    assert [(c.id, c.operation, c.version) for c in plan.changes] == [("rec_new", "create", 1)]


def test_a_replace_supersedes_its_target_in_the_same_plan() -> None:
    old = record("rec_old", version=3)
    new = record("rec_new", replaces="rec_old")
    effects = [add(new)]
    assert record_plan.records_read(effects) == {"rec_new", "rec_old"}

    plan = record_plan.plan_records(effects, {"rec_old": old}, NOW)

    created, superseded = plan.writes
    assert (created.record.replaces, created.expected_version) == ("rec_old", None)
    assert superseded.expected_version == 3
    assert superseded.record.status is RecordStatus.SUPERSEDED
    assert (superseded.record.replaced_by, superseded.record.version) == ("rec_new", 4)
    assert superseded.versions[0].changed_by == new.provenance
    assert [(c.id, c.operation, c.version) for c in plan.changes] == [
        ("rec_new", "create", 1),
        ("rec_old", "supersede", 4),
    ]
    assert plan.restated == [superseded.record]


@pytest.mark.parametrize("meanwhile", [RecordStatus.SUPERSEDED, RecordStatus.DELETED])
def test_a_replace_of_a_record_changed_meanwhile_only_adds(meanwhile: RecordStatus) -> None:
    # Another turn replaced or deleted the target first: the new record stands alone, so
    # replaces/replacedBy stay paired.
    old = record("rec_old", status=meanwhile, version=2)
    plan = record_plan.plan_records(
        [add(record("rec_new", replaces="rec_old"))], {"rec_old": old}, NOW
    )

    (write,) = plan.writes
    assert write.record.id == "rec_new" and write.record.replaces is None


def test_a_delete_writes_the_record_again_as_deleted_by_the_turn() -> None:
    kept = record("rec_1", pinned=True, version=2)
    plan = record_plan.plan_records([delete("rec_1")], {"rec_1": kept}, NOW)

    (write,) = plan.writes
    assert write.expected_version == 2
    assert (write.record.status, write.record.pinned, write.record.version) == (
        RecordStatus.DELETED,
        False,
        3,
    )
    assert write.versions[0].changed_by == BY and write.versions[0].at == NOW
    assert [(c.id, c.operation) for c in plan.changes] == [("rec_1", "delete")]


def test_a_delete_of_a_record_gone_meanwhile_and_a_replayed_add_write_nothing() -> None:
    gone = record("rec_1", status=RecordStatus.DELETED, version=2)
    applied = record("rec_2")  # committed by the turn this one replays
    plan = record_plan.plan_records(
        [delete("rec_1"), add(applied, 2)], {"rec_1": gone, "rec_2": applied}, NOW
    )
    assert plan.writes == [] and plan.changes == []


def restate(record_id: str, *sources: str, sequence: int = 1) -> record_plan.RecordRestate:
    by = Provenance(actor="agent:a1@1", turn_id="trn_2")
    return record_plan.RecordRestate(f"e{sequence}", sequence, record_id, sources, by)


def test_a_restatement_cites_the_new_messages_in_a_version_with_the_same_text() -> None:
    kept = record("rec_1", version=2, provenance=BY.model_copy(update={"sources": ["m1"]}))
    plan = record_plan.plan_records([restate("rec_1", "m1", "m7", "m7")], {"rec_1": kept}, NOW)

    (write,) = plan.writes
    assert write.expected_version == 2 and write.record.version == 3
    assert write.record.provenance.sources == ["m1", "m7"]
    assert write.record.provenance.turn_id == "trn_1"  # still the turn that wrote the fact
    assert (write.record.summary, write.record.status) == (kept.summary, RecordStatus.ACTIVE)
    (version,) = write.versions
    assert version.operation is RecordOperation.RESTATE and version.changed_by.turn_id == "trn_2"
    assert plan.restated == [write.record] and plan.created == []
    assert [(c.id, c.operation, c.version) for c in plan.changes] == [("rec_1", "restate", 3)]


@pytest.mark.parametrize("status", [RecordStatus.SUPERSEDED, RecordStatus.DELETED])
def test_a_restatement_of_a_record_gone_or_cited_already_writes_nothing(status) -> None:
    cited = record("rec_1", provenance=BY.model_copy(update={"sources": ["m1"]}))
    gone = record("rec_2", status=status)
    plan = record_plan.plan_records(
        [restate("rec_1", "m1"), restate("rec_2", "m9", sequence=2)],
        {"rec_1": cited, "rec_2": gone},
        NOW,
    )
    assert plan.writes == [] and plan.changes == []


def test_the_sources_a_record_cites_keep_the_first_and_the_latest() -> None:
    old = [f"m{i}" for i in range(record_plan.MAX_SOURCES)]
    merged = record_plan.cited(old, ["m99", "m0"])
    assert merged is not None and len(merged) == record_plan.MAX_SOURCES
    assert merged[0] == "m0" and merged[-1] == "m99" and "m1" not in merged
    assert record_plan.cited(old, ["m3"]) is None


def test_a_pinned_add_asks_for_the_pin_budget_which_refuses_a_list_over_it() -> None:
    pinned = [add(record("rec_p", pinned=True))]
    assert record_plan.pins_records(pinned)
    assert not record_plan.pins_records([add(record("rec_q")), delete("rec_p", 2)])
    record_plan.check_pin_budget(needed=100, max_tokens=100)

    with pytest.raises(Conflict) as refused:
        record_plan.check_pin_budget(needed=101, max_tokens=100)
    assert refused.value.code == "memory.pin_budget"
    assert "101 tokens, over this agent's 100" in str(refused.value)


# -- files ------------------------------------------------------------------------------------

TURN = Turn(
    tenant="t1",
    agent_id="a1",
    session_id="ses_1",
    id="trn_1",
    sequence=1,
    manifest_version=4,
    created_at=EARLIER,
)


def head(path: str, content: str = "old\n", version: int = 1) -> FileMemory:
    return file_plan.file_head(
        "t1", "a1", path, content, version, EARLIER + timedelta(seconds=version), "api:app"
    )


def change(
    *items: FileChangeItem, read: dict[str, Any] | None = None, n: int = 1
) -> FileChangeEffect:
    payload = FileChange(changes=list(items), output="ok", read=read or {})
    return FileChangeEffect(effect_id=f"memory:{n}", turn_id="trn_1", sequence=n, payload=payload)


def item(
    operation: Any, path: str, content: str | None = None, from_path: str | None = None
) -> FileChangeItem:
    return FileChangeItem(operation=operation, path=path, content=content, from_path=from_path)


def plan(effects: list[FileChangeEffect], stored: dict[str, FileMemory]) -> file_plan.FilePlan:
    heads = {path: stored.get(path) for path in file_plan.paths_read(effects)}
    return file_plan.plan_files(TURN, effects, heads, NOW)


def test_a_create_and_an_update_write_heads_against_the_versions_read() -> None:
    notes = head("/memories/notes.md", version=2)
    effects = [
        change(
            item("create", "/memories/new.md", "new\n"),
            item("update", notes.path, "edited\n"),
            read={"/memories/new.md": None, notes.path: file_plan.stamp(notes)},
        )
    ]
    result = plan(effects, {notes.path: notes})

    made, edited = result.writes
    assert (made.expected_version, made.count_delta) == (None, 1)
    assert made.head is not None and (made.head.version, made.head.updated_by) == (1, "agent:a1@4")
    assert (edited.expected_version, edited.count_delta) == (2, 0)
    assert edited.head is not None and (edited.head.content, edited.head.version) == ("edited\n", 3)
    assert edited.versions[0].turn_id == "trn_1"
    assert [(c.path, c.operation, c.version) for c in result.changes] == [
        ("/memories/new.md", "create", 1),
        (notes.path, "update", 3),
    ]


def test_a_rename_leaves_the_old_path_and_a_delete_removes_the_head() -> None:
    a, gone = head("/memories/a.md", version=3), head("/memories/gone.md")
    effects = [
        change(item("rename", "/memories/b.md", "old\n", "/memories/a.md")),
        change(item("delete", gone.path), n=2),
    ]
    assert file_plan.paths_read(effects) == ["/memories/a.md", "/memories/b.md", gone.path]

    left, moved, deleted = plan(effects, {a.path: a, gone.path: gone}).writes

    assert (left.head, left.expected_version, left.count_delta, left.versions) == (None, 3, -1, [])
    assert moved.head is not None and moved.head.version == 4 and moved.count_delta == 1
    assert [(v.operation, v.from_path, v.version) for v in moved.versions] == [
        ("rename", "/memories/a.md", 4)
    ]
    assert (deleted.head, deleted.count_delta) == (None, -1)
    assert [v.operation for v in deleted.versions] == ["delete"]


def test_memories_made_in_the_turn_then_renamed_or_deleted() -> None:
    # Made then renamed: one history under the final path, from its creation. Made then
    # deleted: never visible, nothing to write.
    effects = [
        change(item("create", "/memories/draft.md", "draft\n")),
        change(item("rename", "/memories/final.md", "draft\n", "/memories/draft.md"), n=2),
        change(item("create", "/memories/tmp.md", "tmp\n"), n=3),
        change(item("delete", "/memories/tmp.md"), n=4),
    ]
    result = plan(effects, {})

    (final,) = result.writes
    assert final.path == "/memories/final.md" and final.head is not None
    assert [(v.path, v.operation, v.version) for v in final.versions] == [
        ("/memories/final.md", "create", 1)
    ]
    assert [(c.path, c.operation) for c in result.changes] == [("/memories/final.md", "create")]


@pytest.mark.parametrize(
    "seen",
    [
        FileStamp(version=1, at=(EARLIER + timedelta(seconds=1)).isoformat()),  # changed since
        FileStamp(version=2, at=NOW.isoformat()),  # deleted and made again: same version
        1,  # a bare version, as effects staged before stamps were kept hold
        None,  # read as absent, created since
    ],
)
def test_a_base_that_moved_since_the_turn_read_it_is_a_conflict(seen: Any) -> None:
    stored = head("/memories/notes.md", version=2)
    effects = [change(item("update", stored.path, "mine\n"), read={stored.path: seen})]

    with pytest.raises(MemoryConflict) as refused:
        plan(effects, {stored.path: stored})
    assert refused.value.code == "memory_conflict"
    assert refused.value.details["path"] == stored.path


def test_a_bare_version_that_still_holds_commits() -> None:
    notes = head("/memories/notes.md", version=2)
    effects = [change(item("update", notes.path, "mine\n"), read={notes.path: 2})]
    (write,) = plan(effects, {notes.path: notes}).writes
    assert write.expected_version == 2


def test_a_preview_turn_keeps_each_paths_last_content_and_nothing_live() -> None:
    effects = [
        change(item("create", "/memories/a.md", "one\n")),
        change(item("rename", "/memories/b.md", "one\n", "/memories/a.md"), n=2),
    ]
    writes = file_plan.preview_file_writes(TURN, effects, NOW)

    assert [(w.path, w.preview and w.preview.content) for w in writes] == [
        ("/memories/a.md", None),
        ("/memories/b.md", "one\n"),
    ]
    assert all(w.head is None and w.versions == [] and w.count_delta == 0 for w in writes)


def test_staged_writes_split_by_kind() -> None:
    staged = [add(record("rec_1")), change(n=2), delete("rec_1", 3)]
    assert [e.sequence for e in record_plan.record_effects(staged)] == [1, 3]
    assert [e.sequence for e in file_plan.file_effects(staged)] == [2]
