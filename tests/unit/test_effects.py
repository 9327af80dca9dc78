"""Typed staged writes load from the stored form effects have always had, and keep it."""

import json
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from agent_memory.domain.records.models import Provenance, Record
from agent_memory.domain.turns.effects import (
    FileChangeEffect,
    RecordAddEffect,
    RecordDeleteEffect,
    effect_from_json,
)

pytestmark = pytest.mark.unit

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _record() -> Record:
    return Record(
        tenant="t1",
        agent_id="a1",
        id="rec_1",
        scope="agent",
        summary="likes tea",
        kind="preference",
        provenance=Provenance(actor="agent:a1"),
        created_at=NOW,
        updated_at=NOW,
    )


def test_a_record_add_keeps_its_tenant_in_the_stored_form():
    effect = RecordAddEffect(
        effect_id="e1", turn_id="trn_1", sequence=1, payload={"record": _record()}
    )
    stored = json.loads(effect.model_dump_json())
    assert stored["kind"] == "record.add"
    assert stored["payload"]["record"]["tenant"] == "t1"
    loaded = effect_from_json(effect.model_dump_json())
    assert isinstance(loaded, RecordAddEffect)
    assert loaded.payload.record == _record()


def test_effects_staged_as_plain_dicts_still_load():
    old_delete = {
        "effect_id": "e2",
        "turn_id": "trn_1",
        "sequence": 2,
        "kind": "record.delete",
        "payload": {"id": "rec_1", "target_bytes": 120, "by": {"actor": "agent:a1"}},
    }
    loaded = effect_from_json(json.dumps(old_delete))
    assert isinstance(loaded, RecordDeleteEffect)
    assert loaded.payload.by == Provenance(actor="agent:a1")
    assert json.loads(loaded.model_dump_json())["payload"]["target_bytes"] == 120

    old_file = {
        "effect_id": "memory:x",
        "turn_id": "trn_1",
        "sequence": 3,
        "kind": "file.change",
        "payload": {
            "changes": [
                {
                    "operation": "rename",
                    "path": "/memories/b.md",
                    "content": "x",
                    "from_path": "/memories/a.md",
                }
            ],
            "output": "renamed",
            "read": {
                "/memories/a.md": {"version": 2, "at": NOW.isoformat()},
                "/memories/b.md": None,
            },
        },
    }
    loaded = effect_from_json(json.dumps(old_file))
    assert isinstance(loaded, FileChangeEffect)
    assert loaded.payload.changes[0].from_path == "/memories/a.md"
    assert loaded.payload.read["/memories/b.md"] is None
    assert json.loads(loaded.model_dump_json()) == old_file


@pytest.mark.parametrize(
    ("kind", "payload"),
    [("record.rename", {}), ("record.delete", {"changes": []})],
    ids=["unknown kind", "payload of another kind"],
)
def test_an_unknown_kind_or_a_payload_of_another_kind_is_refused(
    kind: str, payload: dict[str, object]
) -> None:
    stored = {"effect_id": "e", "turn_id": "t", "sequence": 1, "kind": kind, "payload": payload}
    with pytest.raises(ValidationError):
        effect_from_json(json.dumps(stored))


def test_a_write_with_no_target_is_stored_without_target_bytes_as_it_always_was():
    effect = RecordAddEffect(
        effect_id="e1", turn_id="trn_1", sequence=1, payload={"record": _record()}
    )
    assert set(json.loads(effect.model_dump_json())["payload"]) == {"record"}
    assert effect.record_id == "rec_1"
    replacing = effect.payload.model_copy(update={"target_bytes": 80})
    assert replacing.model_dump(mode="json")["target_bytes"] == 80


def test_a_file_base_kept_as_a_bare_version_still_loads():
    old_file = {
        "effect_id": "memory:y",
        "turn_id": "trn_1",
        "sequence": 1,
        "kind": "file.change",
        "payload": {
            "changes": [
                {
                    "operation": "update",
                    "path": "/memories/a.md",
                    "content": "x",
                    "from_path": None,
                }
            ],
            "output": "edited",
            "read": {"/memories/a.md": 3},
        },
    }
    loaded = effect_from_json(json.dumps(old_file))
    assert isinstance(loaded, FileChangeEffect)
    assert loaded.payload.read == {"/memories/a.md": 3}
    assert json.loads(loaded.model_dump_json()) == old_file
