"""The reserved session of an agent's sessionless turns (models.AGENT_SESSION), on every Store:
made once, its turns begun, staged and ended as any session's, kept apart from the sessions
callers make, and gone with its agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from agent_memory.domain.kernel.errors import Conflict
from agent_memory.domain.kernel.models import AGENT_SESSION, TurnStatus, utcnow
from agent_memory.domain.records.models import Provenance, Record
from agent_memory.domain.sessions.agent_turns import check_sessionless, ensure_agent_session
from agent_memory.domain.store import Store
from agent_memory.domain.turns.effects import RecordAdd, RecordAddEffect

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

AGENT_ONLY = {"harness": {"memory": {"scope": {"read": ["agent"], "write": ["agent"]}}}}


def test_the_reserved_session_is_made_once_and_runs_turns(store: Store, build: Build) -> None:
    # Given an agent that reads and writes agent scope alone, with a session of its own
    agent, version = build.agent("teams/nightly", manifest=AGENT_ONLY)
    store.create_agent(agent, version)
    store.create_session(build.session(agent, "ses_1"))
    check_sessionless(agent)
    # When its reserved session is made twice (a second begin finds it made)
    ensure_agent_session(store, agent)
    ensure_agent_session(store, agent)
    reserved = store.get_session("acme", "teams/nightly", AGENT_SESSION)
    assert reserved is not None and (reserved.last_sequence, reserved.owner) == (0, None)
    # Then a turn begins, stages a write and commits in it as in any session
    turn = build.turn(reserved, 1, "trn_nightly")
    store.begin_turn(turn)
    now = utcnow()
    record = Record(
        tenant="acme",
        agent_id="teams/nightly",
        id="rec_nightly",
        scope="agent",
        summary="Nightly builds run at 02:00",
        kind="fact",
        provenance=Provenance(actor="agent:teams/nightly@1", turn_id=turn.id),
        created_at=now,
        updated_at=now,
    )
    effect = RecordAddEffect(
        effect_id="eff_1", turn_id=turn.id, sequence=0, payload=RecordAdd(record=record)
    )
    store.stage_effect("acme", "teams/nightly", AGENT_SESSION, effect)
    staged = store.staged_effects("acme", "teams/nightly", AGENT_SESSION, turn.id)
    assert [e.effect_id for e in staged] == ["eff_1"]
    ended = store.end_turn(turn, TurnStatus.COMMITTED, utcnow())
    assert ended.status is TurnStatus.COMMITTED
    assert ended.model_dump(mode="json", by_alias=True)["sessionId"] is None
    assert [t.id for t in store.list_turns("acme", "teams/nightly", AGENT_SESSION)] == [turn.id]
    # And the caller's own session keeps its turns apart
    assert store.list_turns("acme", "teams/nightly", "ses_1") == []
    # And deleting the agent takes the reserved session with it
    assert store.delete_agent("acme", "teams/nightly")
    assert store.get_session("acme", "teams/nightly", AGENT_SESSION) is None
    assert store.list_turns("acme", "teams/nightly", AGENT_SESSION) == []


def test_an_agent_that_reads_or_writes_session_scope_is_refused(build: Build) -> None:
    agent, _ = build.agent("teams/web", manifest={"harness": {"memory": {}}})
    with pytest.raises(Conflict) as refused:
        check_sessionless(agent)
    assert refused.value.code == "session_required"
    assert 'read ["session"], write ["session"]' in refused.value.message
