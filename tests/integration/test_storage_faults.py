"""A full disk and a damaged page, met while serving: clear answers (507 `storage_full`, 503
`storage_damaged`), nothing half-written, reads still served, and never a 500.

The disk is filled for real: SQLite's page cap (`max_page_count`) on the connection the request
runs on makes a write that needs a new page fail with SQLITE_FULL, the code a write meeting
ENOSPC returns. The damaged page is one the test overwrites in a copy of the database."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings
from apiclient import ApiClient, drained

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/ops"
M = A + "/-/memories"


def serving(path: Path, data_dir: Path) -> tuple[SqliteStore, ApiClient]:
    store = SqliteStore(path)
    services = build_services(Settings(data_dir=data_dir, embeddings="none"), store=store)
    return store, ApiClient(drained(Api(services).handle, services))


@pytest.fixture
def loaded(tmp_path):
    """An agent with three file memories, and the database they are in."""
    path = tmp_path / "agent-memory.sqlite3"
    store, api = serving(path, tmp_path)
    memory = {
        "enabled": True,
        "access": "read_write",
        "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
        "tools": ["add_memory"],
    }
    api.ok("PUT", A, {"harness": {"memory": memory}}, expect=201)
    for n in range(3):
        api.ok("PUT", f"{M}/notes/n{n}.md", {"content": f"deploys go out on day {n}\n"}, expect=201)
    return path, store, api


def test_a_full_disk_refuses_the_write_whole_with_507_and_reads_go_on(loaded):
    # Given a database that cannot grow by one more page
    _, store, api = loaded
    conn = store.db.connection()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count={pages}")
    big = "a line of notes that will not fit\n" * 2500
    # When a write needs more room than is left
    status, body = api.call("PUT", f"{M}/notes/big.md", {"content": big})
    # Then it is refused as storage_full, not as a bug
    assert status == 507, body
    assert body["error"]["code"] == "storage_full"
    # And nothing of it was written, while what was there is read as before
    assert api.call("GET", f"{M}/notes/big.md")[0] == 404
    assert api.ok("GET", f"{M}/notes/n1.md")["content"] == "deploys go out on day 1\n"
    listed = api.ok("GET", M)["memories"]
    assert sorted(m["path"] for m in listed) == [f"/memories/notes/n{n}.md" for n in range(3)]
    # And once there is room again, the same write succeeds
    conn.execute(f"PRAGMA max_page_count={pages * 1000}")
    api.ok("PUT", f"{M}/notes/big.md", {"content": big}, expect=201)
    assert api.ok("GET", f"{M}/notes/big.md")["content"] == big


def test_a_full_disk_inside_a_batch_refuses_the_batch_and_the_next_write_works(loaded):
    # Given a database that cannot grow, and writes made as one batch (one transaction)
    _, store, api = loaded
    conn = store.db.connection()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count={pages}")
    # When a batch's write finds the disk full (SQLite rolls the whole transaction back)
    from agent_memory.domain.kernel.errors import StorageFull

    with pytest.raises(StorageFull), store.batched():
        for n in range(50):
            with store.db.write() as c:
                c.execute(
                    "INSERT INTO tenant_limits (tenant, doc) VALUES (?, ?)", (f"t{n}", "x" * 4000)
                )
    # Then none of the batch is there, and a later write, with room, commits
    assert conn.execute("SELECT count(*) FROM tenant_limits").fetchone()[0] == 0
    assert not conn.in_transaction
    conn.execute(f"PRAGMA max_page_count={pages * 1000}")
    api.ok("PUT", f"{M}/notes/after.md", {"content": "room again\n"}, expect=201)


def damage_page(path: Path, table: str) -> None:
    """Overwrite the root page of `table` (a table or an index) with garbage, the rest intact."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    conn.close()
    with path.open("r+b") as file:
        file.seek((root - 1) * page_size)
        file.write(bytes([0xA5]) * page_size)


def test_a_damaged_page_met_while_serving_is_503_storage_damaged_logged_once(loaded, caplog):
    # Given the server stopped, one page of the file memories' table overwritten, and a restart
    path, store, _ = loaded
    store.close()
    damage_page(path, "files")
    store, api = serving(path, path.parent)
    caplog.set_level(logging.ERROR)
    # When a read meets the damaged page, twice
    answers = [api.call("GET", f"{M}/notes/n1.md") for _ in range(2)]
    # Then each is 503 storage_damaged, never a 500, and the damage is logged once, with the file
    for status, body in answers:
        assert status == 503, body
        assert body["error"]["code"] == "storage_damaged"
        assert "restore" in body["error"]["message"]
    damaged = [r for r in caplog.records if r.getMessage().startswith("database damaged")]
    assert len(damaged) == 1
    assert damaged[0].path == str(path)  # type: ignore[attr-defined]
    # And reads that do not touch the damaged page are still served
    assert api.ok("GET", A)["id"] == "teams/ops"
    store.close()


def test_a_damaged_search_index_page_is_503_not_500(loaded):
    # Given a record's words indexed, the server stopped and the words index's page damaged
    path, store, api = loaded
    session = api.ok("POST", f"{A}/-/sessions", {}, expect=201)["id"]
    turn = api.ok("POST", f"{A}/-/sessions/{session}/turns", {}, expect=201)["id"]
    tool = f"{A}/-/sessions/{session}/turns/{turn}/tools/add_memory"
    added = api.call(
        "POST",
        tool,
        {
            "summary": "deploys on Tuesday",
            "content": "we deploy on Tuesday",
            "scope": "agent",
            "caller": {"role": "agent"},
        },
    )
    assert added[0] == 200, added
    api.ok("POST", f"{A}/-/sessions/{session}/turns/{turn}/commit", {})
    store.close()
    conn = sqlite3.connect(path)
    words = conn.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE 'search_words%_data'"
    ).fetchall()
    conn.close()
    assert words
    for (table,) in words:
        damage_page(path, table)
    store, api = serving(path, path.parent)
    # When the records are searched by words
    status, body = api.call("GET", f"{A}/-/records", query="Tuesday")
    # Then the answer is 503 storage_damaged
    assert status == 503, body
    assert body["error"]["code"] == "storage_damaged"
    store.close()
