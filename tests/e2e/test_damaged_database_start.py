"""`agent-memory serve` on a database file it must not open: one line naming the file and the
way out (restore, or --data-dir elsewhere), exit status 1, no traceback, the file untouched."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.domain.agents.service import parse_manifest

pytestmark = pytest.mark.e2e

DB = "agent-memory.sqlite3"


def a_real_database(data_dir: Path) -> Path:
    """A database the service made, with enough in it to span many pages."""
    from agent_memory.bootstrap import build_services
    from agent_memory.settings import Settings

    services = build_services(Settings(data_dir=data_dir, embeddings="none"), embedder=None)
    services.agents.put("t", "ops", parse_manifest({}))
    for n in range(200):
        services.files.put("t", "ops", f"notes/n{n}.md", f"note {n}\n" * 50, None, actor="t")
    services.close()
    path = data_dir / DB
    assert not (data_dir / f"{DB}-wal").exists()  # checkpointed on close: the file is whole
    return path


def truncated(data_dir: Path) -> Path:
    path = a_real_database(data_dir)
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size // 2)
    return path


def garbage(data_dir: Path) -> Path:
    data_dir.mkdir(parents=True)
    path = data_dir / DB
    path.write_bytes(os.urandom(64 * 1024))
    return path


def zero_length(data_dir: Path) -> Path:
    path = a_real_database(data_dir)
    path.write_bytes(b"")
    return path


def foreign(data_dir: Path) -> Path:
    data_dir.mkdir(parents=True)
    path = data_dir / DB
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.execute("INSERT INTO invoices (total) VALUES (12.5)")
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (truncated, "cut short"),
        (garbage, "not a SQLite database"),
        (zero_length, "empty (0 bytes)"),
        (foreign, "another program"),
    ],
    ids=["truncated", "garbage", "zero-length", "foreign"],
)
def test_serve_refuses_a_database_it_must_not_open_in_one_line(tmp_path, make, why):
    # Given a data directory whose database file is damaged or not the service's
    data_dir = tmp_path / "data"
    path = make(data_dir)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    # When the server is started on it
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory.cli", "serve", "--port", "0"]
        + ["--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # Then it refuses in one line naming the file, what is wrong and the ways out
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    # (beside the start's log lines: a directory the test made is made private first)
    lines = [line for line in done.stderr.splitlines() if line.startswith("agent-memory:")]
    assert len(lines) == 1, done.stderr
    assert " ERROR " not in done.stderr, done.stderr
    (line,) = lines
    assert line.startswith(f"agent-memory: cannot start on {path}: ")
    assert why in line
    assert "agent-memory restore" in line and "--data-dir" in line
    # And the file is as it was: nothing was written into it
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_the_checks_let_a_whole_database_and_a_new_directory_open(tmp_path):
    # Given a whole database the service made, and a directory with no database yet
    whole = a_real_database(tmp_path / "whole")
    (tmp_path / "new").mkdir()
    # When each is opened
    for path in (whole, tmp_path / "new" / DB):
        store = SqliteStore(path)
        # Then it opens, and reads what it holds
        assert store.db.read().execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
        store.close()
