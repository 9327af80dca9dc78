"""Effects staged before they were typed models (plain dicts, a file's base as a bare version)
still load from either store and commit as they always did."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from agent_memory.adapters.dynamodb import DynamoStore
from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.bootstrap import build_services
from agent_memory.domain.kernel.models import Session, TurnStatus
from agent_memory.domain.records.models import RecordStatus, to_doc
from agent_memory.domain.store import Store
from agent_memory.domain.turns.effects import (
    FileChangeEffect,
    RecordAddEffect,
    RecordDeleteEffect,
    effect_from_json,
)
from agent_memory.settings import Settings

if TYPE_CHECKING:
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]
AGENT = "teams/web"


def keep_old_form(store: Store, session: Session, doc: dict[str, Any]) -> None:
    """Stage `doc` as an effect staged before effects were typed: staged through the port (so
    the turn counts it), then its stored document replaced by the plain dict, as written then."""
    effect = effect_from_json(json.dumps(doc))
    store.stage_effect("acme", AGENT, session.id, effect)
    old = json.dumps(doc)  # json.dumps' spacing, not pydantic's: the bytes differ too
    if isinstance(store, SqliteStore):
        with store.db.write() as conn:
            replaced = conn.execute(
                "UPDATE effects SET doc = ? WHERE tenant = ? AND agent_id = ?"
                " AND session_id = ? AND turn_id = ? AND sequence = ?",
                (old, "acme", AGENT, session.id, effect.turn_id, effect.sequence),
            )
        assert replaced.rowcount == 1
    else:
        assert isinstance(store, DynamoStore)
        item = store._items.effect.of("acme", AGENT, session.id, effect)
        item.doc = old
        item.save()


def test_effects_staged_as_plain_dicts_commit(
    store: Store, build: Build, agent_with_session: MakeSession, tmp_path: Path
) -> None:
    # Given a record and two memories committed earlier
    session = agent_with_session()
    kept = build.record("rec_kept")
    store.write_records("acme", AGENT, [build.create(kept)])
    notes = build.memory("/memories/notes.md", "old notes\n")
    store.write_files("acme", AGENT, [build.create_file(notes.path, notes.content)], 100)
    # ... and a live turn that staged, in the old plain form, a new record, the record's
    # delete, a new memory and an edit whose base is a bare version
    turn = build.turn(session, 1).model_copy(update={"preview": False, "replay_of": None})
    store.begin_turn(turn)
    added = build.record("rec_added").model_copy(update={"session_id": None})
    staged = [
        {"kind": "record.add", "payload": {"record": to_doc(added)}},
        {
            "kind": "record.delete",
            "payload": {
                "id": kept.id,
                "target_bytes": 300,
                "by": {"actor": "agent:teams/web@1", "turn_id": turn.id},
            },
        },
        {
            "kind": "file.change",
            "payload": {
                "changes": [
                    {
                        "operation": "create",
                        "path": "/memories/new.md",
                        "content": "new\n",
                        "from_path": None,
                    },
                    {
                        "operation": "update",
                        "path": notes.path,
                        "content": "new notes\n",
                        "from_path": None,
                    },
                ],
                "output": "done",
                "read": {"/memories/new.md": None, notes.path: 1},
            },
        },
    ]
    for sequence, effect in enumerate(staged, start=1):
        doc = {"effect_id": f"eff_{sequence}", "turn_id": turn.id, "sequence": sequence, **effect}
        keep_old_form(store, session, doc)
    read_back = store.staged_effects("acme", AGENT, session.id, turn.id)
    assert [type(e) for e in read_back] == [RecordAddEffect, RecordDeleteEffect, FileChangeEffect]

    # When the turn commits
    services = build_services(Settings(data_dir=tmp_path), store=store, embedder=None, model=None)
    ended = services.sessions.commit(turn.ref)

    # Then every write applied: the record added, the other deleted by the turn, the memory
    # made and the other edited on the base it read
    assert ended.status is TurnStatus.COMMITTED
    records = {r.id: r for r in store.get_records("acme", AGENT, [added.id, kept.id])}
    assert records[added.id].status is RecordStatus.ACTIVE
    assert records[kept.id].status is RecordStatus.DELETED
    (deleted,) = [
        v
        for v in store.record_versions("acme", AGENT, kept.id, 10, None)
        if v.record.status is RecordStatus.DELETED
    ]
    assert deleted.changed_by.turn_id == turn.id
    made = store.get_file("acme", AGENT, "/memories/new.md")
    edited = store.get_file("acme", AGENT, notes.path)
    assert made is not None and made.content == "new\n"
    assert edited is not None and (edited.content, edited.version) == ("new notes\n", 2)
