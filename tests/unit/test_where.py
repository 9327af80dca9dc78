"""Where a call acts: a turn's reference is its session's and its agent's, by name."""

from dataclasses import FrozenInstanceError
from datetime import UTC, datetime

import pytest

from agent_memory.domain.kernel.models import Session, Turn
from agent_memory.domain.kernel.where import AgentRef, SessionRef, TurnRef

pytestmark = pytest.mark.unit

NOW = datetime(2026, 12, 3, tzinfo=UTC)


def test_a_turn_reference_is_a_session_reference_and_an_agent_reference():
    where = SessionRef("acme", "teams/web", "ses_1").turn("trn_1")
    assert where == TurnRef("acme", "teams/web", "ses_1", "trn_1")
    assert isinstance(where, SessionRef) and isinstance(where, AgentRef)
    assert where.session == SessionRef("acme", "teams/web", "ses_1")
    assert where.session.agent == AgentRef("acme", "teams/web")


def test_references_are_values():
    # Equal parts are the same place (a dict key, a cache key); a reference never changes.
    assert {TurnRef("a", "b", "c", "d"): 1}[TurnRef("a", "b", "c", "d")] == 1
    assert TurnRef("a", "b", "c", "d") != TurnRef("a", "b", "c", "e")
    with pytest.raises(FrozenInstanceError):
        TurnRef("a", "b", "c", "d").turn_id = "e"  # type: ignore[misc]


def test_a_session_and_a_turn_name_where_they_are():
    session = Session(tenant="acme", agent_id="web", id="ses_1", created_at=NOW)
    turn = Turn(
        tenant="acme",
        agent_id="web",
        session_id="ses_1",
        id="trn_1",
        sequence=1,
        manifest_version=1,
        created_at=NOW,
    )
    assert session.ref == SessionRef("acme", "web", "ses_1")
    assert turn.ref == session.ref.turn("trn_1")
    # Not part of what the API sends: the references are for the code, not the JSON.
    assert "ref" not in turn.model_dump(by_alias=True)
