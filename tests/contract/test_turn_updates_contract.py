"""A committed turn keeps what each of its calls changed (its memory.updated events) with its
end, in the same write: every test runs against SqliteStore and DynamoStore (under moto)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from agent_memory.domain.kernel.errors import PreconditionFailed
from agent_memory.domain.kernel.models import Change, MemoryUpdate, Session, TurnStatus, utcnow
from agent_memory.domain.sessions.ports import TurnWrites
from agent_memory.domain.store import Store

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]
UPDATES = [
    MemoryUpdate(effect_id="eff_1", changes=[Change(id="rec_01", operation="create", version=1)]),
    MemoryUpdate(
        effect_id="eff_2",
        changes=[
            Change(path="/memories/a.md", operation="create", version=1),
            Change(path="/memories/b.md", operation="delete", version=3),
        ],
    ),
]


@pytest.mark.parametrize("with_writes", [True, False])
def test_a_commit_keeps_its_calls_updates_in_order(
    store: Store, build: Build, agent_with_session: MakeSession, with_writes: bool
) -> None:
    # Given an open turn whose calls changed memory
    session = agent_with_session()
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    writes = TurnWrites([build.create(build.record("rec_01"))] if with_writes else [])

    # When it commits with them
    ended = store.end_turn(
        turn.model_copy(update={"memory_updates": UPDATES}), TurnStatus.COMMITTED, utcnow(), writes
    )

    # Then the turn reads back with each call's update, in call order, as it was written
    assert ended.memory_updates == UPDATES
    kept = store.get_turn("acme", "teams/web", session.id, turn.id)
    assert kept == ended
    assert [t.memory_updates for t in store.list_turns("acme", "teams/web", session.id)] == [
        UPDATES
    ]


def test_a_rollback_keeps_no_update(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    turn = build.turn(session, 1)
    store.begin_turn(turn)

    store.end_turn(
        turn.model_copy(update={"memory_updates": UPDATES}), TurnStatus.ROLLED_BACK, utcnow()
    )

    kept = store.get_turn("acme", "teams/web", session.id, turn.id)
    assert kept is not None and kept.memory_updates == []


def test_a_commit_that_fails_keeps_no_update(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given a turn already committed (without updates)
    session = agent_with_session()
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    store.end_turn(turn, TurnStatus.COMMITTED, utcnow())

    # When a second commit carrying updates is refused
    with pytest.raises(PreconditionFailed):
        store.end_turn(
            turn.model_copy(update={"memory_updates": UPDATES}), TurnStatus.COMMITTED, utcnow()
        )

    # Then the turn keeps none
    kept = store.get_turn("acme", "teams/web", session.id, turn.id)
    assert kept is not None and kept.memory_updates == []
