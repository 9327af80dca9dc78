"""The Store port's contract for model usage: every test runs against SqliteStore and
DynamoStore (under moto)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from agent_memory.domain.kernel.errors import PreconditionFailed
from agent_memory.domain.kernel.ids import new_id
from agent_memory.domain.kernel.models import Session
from agent_memory.domain.store import Store
from agent_memory.domain.usage.models import Usage, UsageTotal

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]
AGENT = "teams/web"


def entry(build: Build, purpose: str, model_id: str, tokens: int, turn_id: str | None) -> Usage:
    return Usage(
        id=new_id("use"),
        agent_id=AGENT,
        session_id="ses_1" if turn_id else None,
        turn_id=turn_id,
        execution_id="exe_1" if turn_id else None,
        purpose=purpose,
        model_id=model_id,
        input_tokens=tokens,
        output_tokens=tokens // 10,
        at=build.now,
    )


def test_usage_is_listed_newest_first_and_totalled_by_purpose_and_model(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    agent_with_session("teams/web/releases")
    made = [
        entry(build, "memory", "claude", 100, "trn_0001"),
        entry(build, "embed", "titan-v2", 7, "trn_0001"),
        entry(build, "embed", "titan-v2", 5, None),
        entry(build, "memory", "claude", 50, "trn_0002"),
        entry(build, "embed", "minilm#int8", 3, "trn_0002"),
    ]
    store.add_usage("acme", AGENT, made[:2])
    store.add_usage("acme", AGENT, made[2:])
    store.add_usage("acme", "teams/web/releases", [entry(build, "memory", "claude", 1, None)])
    newest = made[::-1]

    assert store.list_usage("acme", AGENT, None, 100, None) == newest
    assert store.list_usage("acme", AGENT, "trn_0001", 100, None) == [made[1], made[0]]
    assert store.list_usage("acme", AGENT, "trn_0009", 100, None) == []
    assert store.list_usage("acme", AGENT, None, 2, None) == newest[:2]
    assert store.list_usage("acme", AGENT, None, 2, newest[1].id) == newest[2:4]
    assert store.list_usage("acme", AGENT, None, 10, made[0].id) == []
    assert store.list_usage("acme", AGENT, "trn_0002", 1, made[4].id) == [made[3]]
    assert store.list_usage("acme", AGENT, None, 0, None) == []
    assert store.usage_totals("acme", AGENT) == [
        UsageTotal(
            purpose="embed", model_id="minilm#int8", calls=1, input_tokens=3, output_tokens=0
        ),
        UsageTotal(purpose="embed", model_id="titan-v2", calls=2, input_tokens=12, output_tokens=0),
        UsageTotal(
            purpose="memory", model_id="claude", calls=2, input_tokens=150, output_tokens=15
        ),
    ]
    assert store.usage_totals("acme", "teams/web/releases")[0].calls == 1
    assert store.usage_totals("other", AGENT) == []
    store.add_usage("acme", AGENT, [])


def test_many_entries_at_once_are_all_kept_and_totalled(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    made = [entry(build, "embed", f"model-{n % 3}", n, "trn_0001") for n in range(130)]

    store.add_usage("acme", AGENT, made)

    assert store.list_usage("acme", AGENT, "trn_0001", 1000, None) == made[::-1]
    totals = store.usage_totals("acme", AGENT)
    assert [t.calls for t in totals] == [44, 43, 43]
    assert sum(t.input_tokens for t in totals) == sum(range(130))


def test_usage_needs_its_agent_and_goes_with_it(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    with pytest.raises(PreconditionFailed):
        store.add_usage("acme", "ghost", [entry(build, "embed", "titan-v2", 1, None)])
    assert store.usage_totals("acme", "ghost") == []

    agent_with_session()
    first = entry(build, "embed", "titan-v2", 1, None)
    store.add_usage("acme", AGENT, [first])
    with pytest.raises(PreconditionFailed):
        store.add_usage("acme", AGENT, [entry(build, "embed", "titan-v2", 9, None), first])
    assert store.list_usage("acme", AGENT, None, 10, None) == [first]
    assert store.usage_totals("acme", AGENT)[0].calls == 1

    assert store.delete_agent("acme", AGENT) is True
    agent_with_session()
    assert store.list_usage("acme", AGENT, None, 10, None) == []
    assert store.usage_totals("acme", AGENT) == []
