"""The Store port's contract for file memory and session indexes: every test runs against
SqliteStore and DynamoStore (under moto)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

import pytest

from agent_memory.domain.files.models import FileMemory, FileVersion, FileWrite
from agent_memory.domain.kernel.errors import LimitExceeded, PreconditionFailed
from agent_memory.domain.kernel.models import Session, TurnStatus, utcnow
from agent_memory.domain.sessions.ports import TurnWrites
from agent_memory.domain.store import Store

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

pytestmark = pytest.mark.contract

MakeSession = Callable[..., Session]
AGENT = "teams/web"


def paths(files: list[FileMemory]) -> list[str]:
    return [f.path for f in files]


def listed(store: Store, prefix: str = "/", tenant: str = "acme", agent: str = AGENT) -> list[str]:
    return paths(store.list_files(tenant, agent, prefix, 1000, None))


def history(store: Store, path: str | None = None) -> list[FileVersion]:
    return store.file_versions("acme", AGENT, path, 1000, None)


def stored(store: Store, *writes: FileWrite) -> list[FileMemory]:
    """Apply `writes` (creates) and return their heads."""
    store.write_files("acme", AGENT, writes, 10_000)
    return [w.head for w in writes if w.head is not None]


def summary(head: FileMemory) -> FileMemory:
    """A head as a listing may show it: without its content."""
    return head.model_copy(update={"content": ""})


def unchanged(store: Store, heads: list[FileMemory], versions: list[FileVersion]) -> None:
    assert [store.get_file("acme", AGENT, h.path) for h in heads] == heads
    assert history(store) == versions
    assert store.count_files("acme", AGENT) == len(heads)


# -- heads and versions ------------------------------------------------------------------------


def test_a_created_memory_reads_back_whole(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    big = ('line with "quotes", \\ and \u00e9\u4e2d\t\n' * 2700)[: 100 * 1024 - 10]
    writes = [
        build.create_file("/memories/notes.md"),
        build.create_file("/memories/big.md", big),
        build.create_file("/memories/empty.md", ""),
    ]

    store.write_files("acme", AGENT, writes, 10)

    for write in writes:
        assert store.get_file("acme", AGENT, write.path) == write.head
        (version,) = write.versions
        assert store.get_file_version("acme", AGENT, version.id) == version
    notes = store.get_file("acme", AGENT, "/memories/notes.md")
    assert notes is not None and notes.description == "about /memories/notes.md"
    assert store.count_files("acme", AGENT) == 3
    assert store.get_file("acme", AGENT, "/memories/other.md") is None
    assert store.get_file("other", AGENT, "/memories/notes.md") is None
    assert store.get_file("acme", "teams/web/releases", "/memories/notes.md") is None
    assert store.get_file_version("acme", "teams/web/releases", writes[0].versions[0].id) is None
    assert store.get_file_version("acme", AGENT, "fv_missing") is None


def test_an_update_holds_only_at_the_expected_version(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    create = build.create_file("/memories/notes.md")
    (head,) = stored(store, create)
    update = build.update_file(head, "second")
    store.write_files("acme", AGENT, [update], 10)
    current = store.get_file("acme", AGENT, head.path)
    assert current == update.head
    assert current is not None and current.version == 2
    before = history(store)

    # A write based on version 1 lost its race: refused, and nothing of it kept
    stale = build.update_file(head, "third, from a stale read")
    with pytest.raises(PreconditionFailed):
        store.write_files("acme", AGENT, [stale], 10)
    # As is a create of a path that exists
    with pytest.raises(PreconditionFailed):
        store.write_files("acme", AGENT, [build.create_file(head.path, "again")], 10)

    unchanged(store, [current], before)
    assert store.get_file_version("acme", AGENT, stale.versions[0].id) is None


def test_a_failing_write_leaves_the_whole_batch_unapplied(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    heads = stored(store, build.create_file("/memories/a.md"), build.create_file("/memories/b.md"))
    before = history(store)
    batch = [
        build.update_file(heads[0], "fine"),
        build.create_file("/memories/c.md"),
        build.update_file(heads[1], "stale", expected_version=7),
    ]

    with pytest.raises(PreconditionFailed):
        store.write_files("acme", AGENT, batch, 10)

    unchanged(store, heads, before)


def test_a_delete_holds_only_at_the_expected_version(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    keep, head = stored(
        store, build.create_file("/memories/keep.md"), build.create_file("/memories/gone.md")
    )
    before = history(store)

    with pytest.raises(PreconditionFailed):
        store.write_files("acme", AGENT, [build.delete_file(head, expected_version=2)], 10)
    unchanged(store, [keep, head], before)

    delete = build.delete_file(head)
    store.write_files("acme", AGENT, [delete], 10)

    assert store.get_file("acme", AGENT, head.path) is None
    assert listed(store) == [keep.path]
    assert store.count_files("acme", AGENT) == 1
    assert history(store, head.path)[0] == delete.versions[0]
    assert delete.versions[0].content is None
    # Deleting it again, or a path that never was, fails the same way
    for again in (delete, build.delete_file(build.memory("/memories/never.md"))):
        with pytest.raises(PreconditionFailed):
            store.write_files("acme", AGENT, [again], 10)
    # A write with neither a head nor an expected version deletes nothing that exists
    nothing = FileWrite(
        path="/memories/never.md", head=None, expected_version=None, versions=[], count_delta=0
    )
    with pytest.raises(PreconditionFailed):
        store.write_files("acme", AGENT, [nothing], 10)
    assert store.count_files("acme", AGENT) == 1


def test_no_memory_is_written_for_a_missing_agent(store: Store, build: Build) -> None:
    with pytest.raises(PreconditionFailed):
        store.write_files("acme", "ghost", [build.create_file("/memories/a.md")], 10)

    assert store.list_files("acme", "ghost", "/", 10, None) == []
    assert store.count_files("acme", "ghost") == 0


# -- listings ----------------------------------------------------------------------------------


def test_a_listing_with_content_reads_each_memory_whole_in_path_order(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    big = ("a long line of notes \u00e9\n" * 5000)[: 100 * 1024 - 10]
    heads = stored(
        store,
        build.create_file("/memories/b.md", big),
        build.create_file("/memories/a.md"),
        build.create_file("/memories/empty.md", ""),
    )
    whole = sorted(heads, key=lambda h: h.path)

    assert store.list_files("acme", AGENT, "/memories/", 10, None, with_content=True) == whole
    # Paged as without content: after a path, at most `limit`.
    assert store.list_files(
        "acme", AGENT, "/memories/", 1, "/memories/a.md", with_content=True
    ) == [whole[1]]
    assert store.list_files("acme", AGENT, "/memories/", 10, None) == [summary(h) for h in whole]


def test_listings_are_in_path_order_under_the_prefix_and_never_show_content(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    agent_with_session("teams/web/releases")
    agent_with_session(AGENT, tenant="other")
    names = ["z.md", "b/2.md", "a.md", "ba.md", "b/c/3.md", "b/1.md", "b.md"]
    heads = {
        h.path: h for h in stored(store, *(build.create_file(f"/memories/{n}") for n in names))
    }
    # Neighbours with the same paths: another agent whose id extends this one's, another tenant
    store.write_files(
        "acme",
        "teams/web/releases",
        [build.create_file("/memories/b/0.md", agent_id="teams/web/releases")],
        10,
    )
    store.write_files("other", AGENT, [build.create_file("/memories/b/0.md", tenant="other")], 10)

    everything = store.list_files("acme", AGENT, "/memories/", 100, None)
    assert everything == [summary(heads[p]) for p in sorted(heads)]
    assert listed(store, "/memories/b/") == [
        "/memories/b/1.md",
        "/memories/b/2.md",
        "/memories/b/c/3.md",
    ]
    assert listed(store, "/memories/b") == [
        "/memories/b.md",
        "/memories/b/1.md",
        "/memories/b/2.md",
        "/memories/b/c/3.md",
        "/memories/ba.md",
    ]
    assert listed(store, "") == sorted(heads)
    assert listed(store, "/memories/q/") == []
    assert listed(store, "/memories/b/", agent="teams/web/releases") == ["/memories/b/0.md"]
    assert listed(store, "/memories/b/", tenant="other") == ["/memories/b/0.md"]
    assert listed(store, "/", agent="teams") == []

    # Paging: at most `limit`, after `after`, wherever `after` lies against the prefix
    def page(prefix: str, limit: int, after: str | None) -> list[str]:
        return paths(store.list_files("acme", AGENT, prefix, limit, after))

    assert page("/memories/", 3, None) == ["/memories/a.md", "/memories/b.md", "/memories/b/1.md"]
    assert page("/memories/", 3, "/memories/b/1.md") == [
        "/memories/b/2.md",
        "/memories/b/c/3.md",
        "/memories/ba.md",
    ]
    assert page("/memories/", 3, "/memories/ba.md") == ["/memories/z.md"]
    assert page("/memories/", 3, "/memories/z.md") == []
    assert page("/memories/b/", 10, "/memories/a.md") == [
        "/memories/b/1.md",
        "/memories/b/2.md",
        "/memories/b/c/3.md",
    ]
    assert page("/memories/b/", 10, "/memories/b/2") == ["/memories/b/2.md", "/memories/b/c/3.md"]
    assert page("/memories/b/", 10, "/memories/ba.md") == []
    assert page("/memories/", 0, None) == []


def test_a_prefix_is_matched_literally(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    names = [
        "100%.md",
        "1000.md",
        "100%/x.md",
        "a_b.md",
        "axb.md",
        "a\\b.md",
        "#tag/\u00e9t\u00e9.md",
        "#tag.md",
        "[x]*?.md",
        "x.md",
    ]
    stored(store, *(build.create_file(f"/memories/{n}") for n in names))

    assert listed(store, "/memories/100%") == ["/memories/100%.md", "/memories/100%/x.md"]
    assert listed(store, "/memories/a_") == ["/memories/a_b.md"]
    assert listed(store, "/memories/a\\") == ["/memories/a\\b.md"]
    assert listed(store, "/memories/#tag/") == ["/memories/#tag/\u00e9t\u00e9.md"]
    assert listed(store, "/memories/[x]") == ["/memories/[x]*?.md"]
    assert listed(store, "/memories/%") == []
    assert listed(store, "/memories/_") == []
    assert listed(store, "/memories/") == sorted(f"/memories/{n}" for n in names)


# -- versions ----------------------------------------------------------------------------------


def test_versions_are_newest_first_by_agent_or_by_path_with_renames(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    agent_with_session("teams/web/releases")
    creates = [build.create_file("/memories/a.md"), build.create_file("/memories/b.md")]
    a, b = stored(store, *creates)
    update = build.update_file(a, "a, second")
    store.write_files("acme", AGENT, [update], 10)
    assert update.head is not None
    rename = build.rename_file(update.head, "/memories/c.md")
    store.write_files("acme", AGENT, rename, 10)
    delete = build.delete_file(b)
    store.write_files("acme", AGENT, [delete], 10)
    other = build.create_file("/memories/a.md", agent_id="teams/web/releases")
    store.write_files("acme", "teams/web/releases", [other], 10)
    made = [
        *(w.versions[0] for w in creates),
        update.versions[0],
        rename[1].versions[0],
        delete.versions[0],
    ]
    made.sort(key=lambda v: v.id)

    assert history(store) == made[::-1]
    # A rename is one version under its new path, found under the old path too
    (renamed,) = rename[1].versions
    assert renamed.path == "/memories/c.md" and renamed.from_path == "/memories/a.md"
    assert [v.operation for v in history(store, "/memories/a.md")] == ["rename", "update", "create"]
    assert history(store, "/memories/c.md") == [renamed]
    assert [v.operation for v in history(store, "/memories/b.md")] == ["delete", "create"]
    assert history(store, "/memories/none.md") == []
    assert store.file_versions("acme", "teams/web/releases", None, 10, None) == other.versions

    # Paging: at most `limit`, ids below `before`
    def page(path: str | None, limit: int, before: str | None) -> list[FileVersion]:
        return store.file_versions("acme", AGENT, path, limit, before)

    assert page(None, 2, None) == made[::-1][:2]
    assert page(None, 2, made[3].id) == [made[2], made[1]]
    assert page(None, 10, made[0].id) == []
    assert page("/memories/a.md", 1, renamed.id) == [update.versions[0]]
    assert page("/memories/a.md", 5, update.versions[0].id) == page("/memories/a.md", 5, None)[2:]
    assert page(None, 0, None) == []


# -- the count and its limit -------------------------------------------------------------------


def test_the_count_stays_within_max_files(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    assert store.count_files("acme", AGENT) == 0

    # More than max_files at once, from no count at all: refused, nothing written
    four = [build.create_file(f"/memories/{n}.md") for n in range(4)]
    with pytest.raises(LimitExceeded) as raised:
        store.write_files("acme", AGENT, four, 3)
    assert "3" in raised.value.message
    assert listed(store) == [] and history(store) == []
    assert store.count_files("acme", AGENT) == 0

    # Exactly max_files is allowed
    heads = stored(store, *four[:3])
    store.write_files("acme", AGENT, [], 3)
    assert store.count_files("acme", AGENT) == 3
    before = history(store)

    # One more is not, nor a batch that deletes one and creates two
    with pytest.raises(LimitExceeded):
        store.write_files("acme", AGENT, [four[3]], 3)
    with pytest.raises(LimitExceeded):
        store.write_files(
            "acme",
            AGENT,
            [
                build.delete_file(heads[0]),
                build.create_file("/memories/x.md"),
                build.create_file("/memories/y.md"),
            ],
            3,
        )
    unchanged(store, heads, before)

    # At the limit, updates, renames and deletes still go through
    update = build.update_file(heads[0], "changed")
    store.write_files("acme", AGENT, [update], 3)
    assert update.head is not None
    store.write_files("acme", AGENT, build.rename_file(update.head, "/memories/moved.md"), 3)
    assert store.count_files("acme", AGENT) == 3
    store.write_files("acme", AGENT, [build.delete_file(heads[1])], 3)
    assert store.count_files("acme", AGENT) == 2
    # ... and a delete frees a place for a create in the same batch
    store.write_files(
        "acme",
        AGENT,
        [
            build.delete_file(heads[2]),
            build.create_file("/memories/x.md"),
            build.create_file("/memories/y.md"),
        ],
        3,
    )
    assert store.count_files("acme", AGENT) == 3
    assert listed(store) == ["/memories/moved.md", "/memories/x.md", "/memories/y.md"]


def test_a_stale_write_over_the_limit_is_a_failed_precondition(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    (head,) = stored(store, build.create_file("/memories/a.md"))
    batch = [build.update_file(head, "x", expected_version=9), build.create_file("/memories/b.md")]

    with pytest.raises(PreconditionFailed):
        store.write_files("acme", AGENT, batch, 1)


def test_concurrent_creates_never_pass_max_files(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    agent_with_session()
    writes = [build.create_file(f"/memories/{n}.md") for n in range(8)]
    outcomes: list[str] = []
    start = threading.Barrier(len(writes))

    def create(write: FileWrite) -> None:
        start.wait()
        try:
            store.write_files("acme", AGENT, [write], 5)
            outcomes.append("created")
        except LimitExceeded:
            outcomes.append("limit")

    threads = [threading.Thread(target=create, args=(w,)) for w in writes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["created"] * 5 + ["limit"] * 3
    assert store.count_files("acme", AGENT) == 5
    assert len(listed(store)) == 5
    assert len(history(store)) == 5


# -- a turn's commit ---------------------------------------------------------------------------


def test_a_commit_applies_its_record_and_file_writes_all_or_none(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    (head,) = stored(store, build.create_file("/memories/a.md"))
    before = history(store)
    record = build.create(build.record("rec_001"))
    new = build.create_file("/memories/new.md")

    # A stale file write refuses the whole commit: the turn stays open, no record, no file
    stale = build.update_file(head, "stale", expected_version=5)
    with pytest.raises(PreconditionFailed):
        store.end_turn(turn, TurnStatus.COMMITTED, utcnow(), TurnWrites([record], [new, stale]))
    # So does passing max_files
    with pytest.raises(LimitExceeded):
        store.end_turn(
            turn, TurnStatus.COMMITTED, utcnow(), TurnWrites([record], [new], max_files=1)
        )
    # And a stale record write
    stale_record = build.change(build.record("rec_009"), expected_version=3)
    with pytest.raises(PreconditionFailed):
        store.end_turn(turn, TurnStatus.COMMITTED, utcnow(), TurnWrites([stale_record], [new]))

    assert store.get_turn("acme", AGENT, session.id, turn.id) == turn
    assert store.get_records("acme", AGENT, ["rec_001"]) == []
    unchanged(store, [head], before)

    # The commit itself applies all of them with the turn's end
    update = build.update_file(head, "changed")
    ended_at = build.now + timedelta(seconds=30)
    ended = store.end_turn(
        turn, TurnStatus.COMMITTED, ended_at, TurnWrites([record], [new, update], max_files=2)
    )

    assert ended.status is TurnStatus.COMMITTED
    assert store.get_turn("acme", AGENT, session.id, turn.id) == ended
    assert store.get_records("acme", AGENT, ["rec_001"]) == [record.record]
    assert store.get_file("acme", AGENT, new.path) == new.head
    assert store.get_file("acme", AGENT, head.path) == update.head
    assert store.count_files("acme", AGENT) == 2
    assert history(store)[:2] == [update.versions[0], new.versions[0]]
    # A commit that ended is not repeated
    with pytest.raises(PreconditionFailed):
        store.end_turn(
            turn,
            TurnStatus.COMMITTED,
            utcnow(),
            TurnWrites([], [build.create_file("/memories/z.md")]),
        )
    assert store.get_file("acme", AGENT, "/memories/z.md") is None


def test_a_commit_with_file_writes_only(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    turn = build.turn(session, 1)
    store.begin_turn(turn)
    (head,) = stored(store, build.create_file("/memories/a.md"))
    rename = build.rename_file(head, "/memories/b.md")

    store.end_turn(turn, TurnStatus.COMMITTED, utcnow(), TurnWrites(files=rename))

    assert listed(store) == ["/memories/b.md"]
    assert store.count_files("acme", AGENT) == 1
    assert history(store, "/memories/a.md")[0] == rename[1].versions[0]


# -- the session index -------------------------------------------------------------------------


def test_a_session_index_is_kept_per_session_and_replaced(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    agent, _ = build.agent(AGENT)
    other = build.session(agent, "ses_2")
    store.create_session(other)
    assert store.session_index("acme", AGENT, session.id) is None
    text = "\n".join(f"/memories/{n:03d}.md \u2014 about \u00e9 {n}" for n in range(200))[
        : 25 * 1024
    ]

    store.save_session_index("acme", AGENT, session.id, text, utcnow())
    assert store.session_index("acme", AGENT, session.id) == text
    assert store.session_index("acme", AGENT, other.id) is None
    assert store.session_index("other", AGENT, session.id) is None

    store.save_session_index("acme", AGENT, session.id, "refreshed", utcnow())
    store.save_session_index("acme", AGENT, other.id, "", utcnow())
    assert store.session_index("acme", AGENT, session.id) == "refreshed"
    assert store.session_index("acme", AGENT, other.id) == ""
    # The index sits beside the session's turns without changing how they read
    assert [s.id for s in store.list_sessions("acme", AGENT, 10, None)] == [session.id, other.id]


# -- deleting the agent ------------------------------------------------------------------------


def test_deleting_an_agent_deletes_its_files_versions_count_and_indexes(
    store: Store, build: Build, agent_with_session: MakeSession
) -> None:
    session = agent_with_session()
    agent_with_session("teams/web/releases")
    heads = stored(store, *(build.create_file(f"/memories/{n}.md") for n in range(30)))
    versions = history(store)
    store.save_session_index("acme", AGENT, session.id, "index", utcnow())
    neighbour = build.create_file("/memories/0.md", agent_id="teams/web/releases")
    store.write_files("acme", "teams/web/releases", [neighbour], 10)

    assert store.delete_agent("acme", AGENT) is True

    assert store.list_files("acme", AGENT, "/", 100, None) == []
    assert store.file_versions("acme", AGENT, None, 100, None) == []
    assert store.count_files("acme", AGENT) == 0
    assert store.session_index("acme", AGENT, session.id) is None
    # A new agent of the same id starts with nothing, its count at 0
    agent_with_session()
    assert store.count_files("acme", AGENT) == 0
    assert store.get_file("acme", AGENT, heads[0].path) is None
    assert store.get_file_version("acme", AGENT, versions[0].id) is None
    assert store.session_index("acme", AGENT, session.id) is None
    store.write_files("acme", AGENT, [build.create_file("/memories/a.md")], 1)
    assert store.count_files("acme", AGENT) == 1
    # The neighbour kept everything
    assert listed(store, agent="teams/web/releases") == ["/memories/0.md"]
    assert store.count_files("acme", "teams/web/releases") == 1


def test_a_tenants_limits_read_back_whole_and_stay_with_that_tenant(store: Store) -> None:
    from agent_memory.domain.files.models import TenantLimits

    assert store.tenant_limits("acme") is None
    store.save_tenant_limits("acme", TenantLimits(memories_per_agent=3))
    assert store.tenant_limits("acme") == TenantLimits(memories_per_agent=3)
    store.save_tenant_limits("acme", TenantLimits(memory_bytes=10, memories_per_agent=4))
    assert store.tenant_limits("acme") == TenantLimits(memory_bytes=10, memories_per_agent=4)
    assert store.tenant_limits("globex") is None
