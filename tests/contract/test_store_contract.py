"""The Store port's contract: every test runs against SqliteStore and DynamoStore (under moto)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from agent_memory.domain.kernel.errors import NotFound, PreconditionFailed
from agent_memory.domain.kernel.models import Session, Turn, TurnStatus, utcnow
from agent_memory.domain.store import Store

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]


# -- agents and manifest versions ---------------------------------------------------------------


def test_created_agent_reads_back_with_every_field(store: Store, build: Build) -> None:
    agent, version = build.agent("teams/web/releases")

    store.create_agent(agent, version)

    assert store.get_agent("acme", "teams/web/releases") == agent
    assert store.get_manifest_version("acme", "teams/web/releases", 1) == version
    assert store.get_agent("acme", "teams/web") is None


def test_creating_an_existing_agent_fails_and_keeps_the_first(store: Store, build: Build) -> None:
    first, first_version = build.agent("support")
    store.create_agent(first, first_version)
    second, second_version = build.agent("support", manifest={"memory": {"enabled": False}})

    with pytest.raises(PreconditionFailed):
        store.create_agent(second, second_version)

    assert store.get_agent("acme", "support") == first
    assert store.list_manifest_versions("acme", "support", 10, None) == [first_version]


def test_save_manifest_at_the_expected_version_writes_head_and_version(
    store: Store, build: Build
) -> None:
    agent, version = build.agent("support")
    store.create_agent(agent, version)
    saved, saved_version = build.next_version(agent, {"memory": {"enabled": False}})

    store.save_manifest(saved, saved_version, expected_version=1)

    assert store.get_agent("acme", "support") == saved
    assert store.get_manifest_version("acme", "support", 2) == saved_version
    assert store.list_manifest_versions("acme", "support", 10, None) == [saved_version, version]


def test_save_manifest_at_a_stale_version_changes_nothing(store: Store, build: Build) -> None:
    # Given an agent already moved on to version 2
    agent, version = build.agent("support")
    store.create_agent(agent, version)
    v2_agent, v2 = build.next_version(agent, {"memory": {"enabled": False}})
    store.save_manifest(v2_agent, v2, expected_version=1)
    # When a writer that still believes it is at version 1 saves "version 2" again
    stale_agent, stale = build.next_version(agent, {"history": {"index": "messages"}})

    with pytest.raises(PreconditionFailed):
        store.save_manifest(stale_agent, stale, expected_version=1)

    # Then the head and the versions are exactly as before
    assert store.get_agent("acme", "support") == v2_agent
    assert store.list_manifest_versions("acme", "support", 10, None) == [v2, version]


def test_save_manifest_of_a_missing_agent_fails(store: Store, build: Build) -> None:
    agent, _ = build.agent("ghost")
    saved, saved_version = build.next_version(agent, {})

    with pytest.raises(PreconditionFailed):
        store.save_manifest(saved, saved_version, expected_version=1)

    assert store.get_agent("acme", "ghost") is None
    assert store.get_manifest_version("acme", "ghost", 2) is None


def test_manifest_versions_list_newest_first_and_page_with_before(
    store: Store, build: Build
) -> None:
    agent, version = build.agent("support")
    store.create_agent(agent, version)
    for number in range(2, 13):  # versions 1..12, so paging crosses 9 -> 10 and 10 -> 11
        agent, version = build.next_version(agent, {"n": number})
        store.save_manifest(agent, version, expected_version=number - 1)

    def numbers(limit: int, before: int | None) -> list[int]:
        listed = store.list_manifest_versions("acme", "support", limit, before)
        return [v.version for v in listed]

    assert numbers(100, None) == list(range(12, 0, -1))
    assert numbers(3, None) == [12, 11, 10]
    assert numbers(3, 10) == [9, 8, 7]
    assert numbers(5, 3) == [2, 1]
    assert numbers(5, 1) == []
    assert store.list_manifest_versions("acme", "other", 5, None) == []


def test_agents_list_in_id_order_and_page_with_after(store: Store, build: Build) -> None:
    ids = ["a", "teams/web", "teams/web/releases/x/y", "teams/web/releases", "b.c_d~e-f", "Z9"]
    for agent_id in ids:
        store.create_agent(*build.agent(agent_id))

    def listed(limit: int, after: str | None) -> list[str]:
        return [agent.id for agent in store.list_agents("acme", limit, after)]

    expected = sorted(ids)  # byte order, which is code point order for these ids
    assert listed(100, None) == expected
    assert listed(2, None) == expected[:2]
    assert listed(2, expected[1]) == expected[2:4]
    assert listed(10, expected[-1]) == []
    assert (
        store.get_agent("acme", "teams/web/releases/x/y")
        == build.agent("teams/web/releases/x/y")[0]
    )


def test_tenants_never_see_each_others_agents(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session("teams/web", tenant="tenant-a")

    assert store.get_agent("tenant-b", "teams/web") is None
    assert store.list_agents("tenant-b", 10, None) == []
    assert store.get_session("tenant-b", "teams/web", session.id) is None
    assert store.list_sessions("tenant-b", "teams/web", 10, None) == []
    assert store.list_manifest_versions("tenant-b", "teams/web", 10, None) == []
    with pytest.raises(NotFound):
        store.create_session(session.model_copy(update={"tenant": "tenant-b"}))
    assert store.delete_agent("tenant-b", "teams/web") is False
    assert store.get_session("tenant-a", "teams/web", session.id) == session


# -- delete ------------------------------------------------------------------------------------


def test_delete_removes_the_agent_and_everything_it_owns(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    # Given an agent with two manifest versions, two sessions and turns in each
    session = agent_with_session("teams/web")
    agent = store.get_agent("acme", "teams/web")
    assert agent is not None
    store.save_manifest(*build.next_version(agent, {"v": 2}), expected_version=1)
    other = build.session(agent, "ses_2")
    store.create_session(other)
    turns = [build.turn(session, 1), build.turn(session, 2), build.turn(other, 1, "trn_other")]
    for turn in turns:
        store.begin_turn(turn)
    neighbour = build.agent("teams/web/releases")
    store.create_agent(*neighbour)

    assert store.delete_agent("acme", "teams/web") is True

    assert store.get_agent("acme", "teams/web") is None
    assert [a.id for a in store.list_agents("acme", 10, None)] == ["teams/web/releases"]
    assert store.list_manifest_versions("acme", "teams/web", 10, None) == []
    assert store.get_manifest_version("acme", "teams/web", 1) is None
    assert store.list_sessions("acme", "teams/web", 10, None) == []
    assert store.get_session("acme", "teams/web", session.id) is None
    for turn in turns:
        assert store.get_turn("acme", "teams/web", turn.session_id, turn.id) is None
    assert store.get_agent("acme", "teams/web/releases") == neighbour[0]


def test_deleting_again_or_deleting_a_missing_agent_returns_false(
    store: Store, agent_with_session: MakeSession
) -> None:
    agent_with_session("support")

    assert store.delete_agent("acme", "support") is True
    assert store.delete_agent("acme", "support") is False
    assert store.delete_agent("acme", "never-existed") is False


def test_a_recreated_agent_starts_clean(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    old_session = agent_with_session("support")
    store.begin_turn(build.turn(old_session, 1))
    store.delete_agent("acme", "support")

    agent, version = build.agent("support", manifest={"fresh": True})
    store.create_agent(agent, version)

    assert store.get_agent("acme", "support") == agent
    assert store.list_manifest_versions("acme", "support", 10, None) == [version]
    assert store.list_sessions("acme", "support", 10, None) == []
    assert store.get_turn("acme", "support", old_session.id, "trn_0001") is None


# -- sessions ----------------------------------------------------------------------------------


def test_create_session_needs_the_agent(store: Store, build: Build) -> None:
    agent, _ = build.agent("ghost")

    with pytest.raises(NotFound) as raised:
        store.create_session(build.session(agent))

    assert raised.value.code == "agent_not_found"
    assert store.list_sessions("acme", "ghost", 10, None) == []


def test_a_duplicate_session_id_fails_and_keeps_the_first(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    first = agent_with_session("support")
    store.begin_turn(build.turn(first, 1))
    duplicate = first.model_copy(update={"metadata": {"other": "x"}})

    with pytest.raises(PreconditionFailed):
        store.create_session(duplicate)

    assert store.get_session("acme", "support", first.id) == first.model_copy(
        update={"last_sequence": 1}
    )


def test_sessions_list_in_id_order_and_page_with_after(store: Store, build: Build) -> None:
    agent, version = build.agent("support")
    store.create_agent(agent, version)
    store.save_manifest(*build.next_version(agent, {"v": 2}), expected_version=1)
    ids = ["ses_03", "ses_01", "ses_10", "ses_02"]
    for session_id in ids:
        store.create_session(build.session(agent, session_id))

    def listed(limit: int, after: str | None) -> list[str]:
        return [s.id for s in store.list_sessions("acme", "support", limit, after)]

    assert listed(10, None) == ["ses_01", "ses_02", "ses_03", "ses_10"]
    assert listed(2, "ses_01") == ["ses_02", "ses_03"]
    assert listed(10, "ses_10") == []
    assert store.get_session("acme", "support", "ses_03") == build.session(agent, "ses_03")


# -- turns -------------------------------------------------------------------------------------


def test_begin_turn_stores_it_and_moves_the_sequence(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    turn = build.turn(session, 1)

    store.begin_turn(turn)

    assert store.get_turn("acme", "teams/web", session.id, turn.id) == turn
    stored = store.get_session("acme", "teams/web", session.id)
    assert stored is not None and stored.last_sequence == 1


@pytest.mark.parametrize("sequence", [1, 3])
def test_begin_turn_out_of_sequence_changes_nothing(
    store: Store, build: Build, agent_with_session: MakeSession, sequence: int
) -> None:
    # Given a session whose last turn is number 1
    session = agent_with_session()
    store.begin_turn(build.turn(session, 1))
    # When a turn claims number 1 again, or skips to 3
    late = build.turn(session, sequence, "trn_late")

    with pytest.raises(PreconditionFailed):
        store.begin_turn(late)

    # Then neither the turn nor the sequence moved
    assert store.get_turn("acme", "teams/web", session.id, "trn_late") is None
    stored = store.get_session("acme", "teams/web", session.id)
    assert stored is not None and stored.last_sequence == 1


def test_begin_turn_in_a_missing_session_fails(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    missing = session.model_copy(update={"id": "ses_missing"})

    with pytest.raises(PreconditionFailed):
        store.begin_turn(build.turn(missing, 1))

    assert store.get_session("acme", "teams/web", "ses_missing") is None
    assert store.get_turn("acme", "teams/web", "ses_missing", "trn_0001") is None


def test_concurrent_begins_get_gap_free_sequences(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    threads, per_thread = 8, 5
    begun: list[Turn] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker(worker_id: int) -> None:
        try:
            for n in range(per_thread):
                while True:  # what SessionService.begin_turn does: re-read, try the next number
                    current = store.get_session("acme", "teams/web", session.id)
                    assert current is not None
                    turn = build.turn(session, current.last_sequence + 1, f"trn_{worker_id}_{n}")
                    try:
                        store.begin_turn(turn)
                    except PreconditionFailed:
                        continue
                    with lock:
                        begun.append(turn)
                    break
        except BaseException as exc:  # surfaced below; a thread's exception is otherwise lost
            errors.append(exc)

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=120)

    total = threads * per_thread
    assert errors == []
    assert sorted(turn.sequence for turn in begun) == list(range(1, total + 1))
    stored = store.get_session("acme", "teams/web", session.id)
    assert stored is not None and stored.last_sequence == total
    for turn in begun:
        assert store.get_turn("acme", "teams/web", session.id, turn.id) == turn


@pytest.mark.parametrize("status", [TurnStatus.COMMITTED, TurnStatus.ROLLED_BACK])
def test_end_turn_closes_an_open_turn_once(
    store: Store, build: Build, agent_with_session: MakeSession, status: TurnStatus
) -> None:
    session = agent_with_session()
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    ended_at = utcnow()

    ended = store.end_turn(turn, status, ended_at)

    assert ended == turn.model_copy(update={"status": status, "ended_at": ended_at})
    assert store.get_turn("acme", "teams/web", session.id, turn.id) == ended
    # Ending it again, either way, is refused and leaves it as it was
    for again in (TurnStatus.COMMITTED, TurnStatus.ROLLED_BACK):
        with pytest.raises(PreconditionFailed):
            store.end_turn(turn, again, utcnow())
    assert store.get_turn("acme", "teams/web", session.id, turn.id) == ended


def test_end_turn_of_a_missing_turn_fails(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    ghost = build.turn(session, 1, "trn_ghost")

    with pytest.raises(PreconditionFailed):
        store.end_turn(ghost, TurnStatus.COMMITTED, utcnow())

    assert store.get_turn("acme", "teams/web", session.id, "trn_ghost") is None
