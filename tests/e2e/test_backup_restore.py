"""`agent-memory backup` of a live server under concurrent writers, and `agent-memory restore`:
every write acknowledged before the backup began is back, each writer's writes as a prefix
(one consistent moment), and every file that is not a whole backup is refused in one line."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

import pytest

from agent_memory.client import Client

pytestmark = pytest.mark.e2e

AGENT = "ops/backup"
WRITERS = 4


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_memory.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


class Writers:
    """Threads each writing its own numbered memories in order, noting each acknowledged."""

    def __init__(self, url: str, token: str) -> None:
        self.acked = [-1] * WRITERS
        self.stop = threading.Event()
        self.failures: list[BaseException] = []
        self.threads = [
            threading.Thread(target=self._write, args=(n, Client(url, token)), daemon=True)
            for n in range(WRITERS)
        ]

    def _write(self, writer: int, client: Client) -> None:
        k = 0
        try:
            while not self.stop.is_set():
                client.agents.memories.put(
                    AGENT, f"w{writer}/n{k:05d}.md", f"writer {writer} note {k}\n"
                )
                self.acked[writer] = k
                k += 1
        except BaseException as exc:  # the test fails on it
            self.failures.append(exc)

    def __enter__(self) -> Writers:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(30)


def restored_notes(client: Client) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {n: [] for n in range(WRITERS)}
    for memory in client.agents.memories.iter(AGENT, limit=200):
        writer, note = memory.path.removeprefix("/memories/w").removesuffix(".md").split("/n")
        found[int(writer)].append(int(note))
    return {n: sorted(notes) for n, notes in found.items()}


def test_a_backup_under_concurrent_writers_restores_every_acknowledged_write(
    server, make_server, tmp_path
):
    # Given a live server with writers committing in four threads
    client = server.client()
    client.agents.put(AGENT, {"harness": {"memory": {}}})
    backups = []
    token = (server.data_dir / "token").read_text().strip()
    with Writers(server.url, token) as writers:
        for round_ in range(3):
            deadline = time.monotonic() + 60
            while min(writers.acked) < 20 * (round_ + 1) and not writers.failures:
                assert time.monotonic() < deadline, writers.acked
                time.sleep(0.01)
            assert not writers.failures, writers.failures
            # When a backup is taken while they write
            before = list(writers.acked)
            out = tmp_path / f"backup-{round_}.tar"
            done = cli("backup", "--data-dir", str(server.data_dir), "--out", str(out))
            assert done.returncode == 0, done.stderr
            backups.append((out, before, list(writers.acked)))
    assert not writers.failures, writers.failures
    summary = json.loads(done.stdout)
    assert set(summary["files"]) == {"agent-memory.sqlite3", "tokens.json", "token"}
    for n, (out, before, after) in enumerate(backups):
        # And it is restored into a new directory and served
        data_dir = tmp_path / f"restored-{n}"
        done = cli("restore", str(out), "--data-dir", str(data_dir))
        assert done.returncode == 0, done.stderr
        restored = make_server(data_dir).start()
        notes = restored_notes(restored.client())
        restored.stop()
        # Then every write acknowledged before the backup began is there, each writer's notes
        # are 0..m with no gap (one moment), and none is later than what was acknowledged after
        for writer in range(WRITERS):
            got = notes[writer]
            assert got == list(range(len(got))), (writer, got[:5], len(got))
            assert before[writer] < len(got) <= after[writer] + 2, (writer, before, after)


def test_restore_refuses_a_running_servers_directory_and_data_without_force(server, tmp_path):
    # Given a backup of a live server
    client = server.client()
    client.agents.put(AGENT, {"harness": {"memory": {}}})
    client.agents.memories.put(AGENT, "kept.md", "kept\n")
    out = tmp_path / "b.tar.gz"
    assert cli("backup", "--data-dir", str(server.data_dir), "--out", str(out)).returncode == 0
    database = server.data_dir / "agent-memory.sqlite3"
    before = hashlib.sha256(database.read_bytes()).hexdigest()
    # When it is restored over the directory the server is serving, even with --force
    done = cli("restore", str(out), "--data-dir", str(server.data_dir), "--force")
    # Then it is refused in one line, and the server's data is as it was
    assert done.returncode == 1
    assert done.stderr.startswith("agent-memory: an agent-memory server (or a backup) is using")
    assert len(done.stderr.strip().splitlines()) == 1
    assert hashlib.sha256(database.read_bytes()).hexdigest() == before
    # And with the server stopped, over its data, without --force: refused, nothing changed
    server.stop()
    done = cli("restore", str(out), "--data-dir", str(server.data_dir))
    assert done.returncode == 1 and "is not empty" in done.stderr and "--force" in done.stderr
    # And with --force it replaces the data, and the server starts on it
    done = cli("restore", str(out), "--data-dir", str(server.data_dir), "--force")
    assert done.returncode == 0, done.stderr
    assert not (server.data_dir / "agent-memory.sqlite3-wal").exists()
    server.start()
    assert server.client().agents.memories.get(AGENT, "kept.md").content == "kept\n"


def a_backup(tmp_path: Path, server) -> Path:
    server.client().agents.put(AGENT, {"harness": {"memory": {}}})
    out = tmp_path / "good.tar"
    assert cli("backup", "--data-dir", str(server.data_dir), "--out", str(out)).returncode == 0
    return out


def rewritten(good: Path, to: Path, change) -> Path:
    """A copy of the backup `good` with `change(name, bytes) -> bytes | None` applied to each
    member (None drops it)."""
    with tarfile.open(good) as src, tarfile.open(to, "w") as dst:
        for member in src.getmembers():
            body = change(member.name, src.extractfile(member).read())
            if body is not None:
                member.size = len(body)
                dst.addfile(member, io.BytesIO(body))
    return to


def flipped(name: str, body: bytes) -> bytes:
    if name != "agent-memory.sqlite3":
        return body
    middle = len(body) // 2
    return body[:middle] + bytes([body[middle] ^ 0xFF]) + body[middle + 1 :]


def newer_format(name: str, body: bytes) -> bytes:
    if name != "agent-memory-backup.json":
        return body
    return json.dumps({**json.loads(body), "formatVersion": 99}).encode()


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda good, to: to.write_bytes(b"not a backup\n" * 100) and to, "is not an agent-memory"),
        (lambda good, to: to.write_bytes(good.read_bytes()[:60_000]) and to, "cut short"),
        (lambda good, to: rewritten(good, to, flipped), "does not match its checksum"),
        (lambda good, to: rewritten(good, to, newer_format), "of format 99"),
        (
            lambda good, to: rewritten(
                good, to, lambda n, b: None if n == "agent-memory-backup.json" else b
            ),
            "has no agent-memory-backup.json first",
        ),
    ],
    ids=["garbage", "truncated", "flipped-byte", "newer-format", "no-manifest"],
)
def test_restore_refuses_a_file_that_is_not_a_whole_backup(server, tmp_path, make, said):
    # Given a file that is not a whole backup, made from a good one
    bad = make(a_backup(tmp_path, server), tmp_path / "bad.tar")
    data_dir = tmp_path / "target"
    # When it is restored
    done = cli("restore", str(bad), "--data-dir", str(data_dir))
    # Then one line says why, exit 1, and no directory is left behind
    assert done.returncode == 1, done.stdout
    assert done.stderr.startswith("agent-memory: ") and said in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert not data_dir.exists()


def test_backup_refuses_a_damaged_database_and_a_directory_without_one(tmp_path):
    # Given a directory with no database
    empty = tmp_path / "empty"
    empty.mkdir()
    done = cli("backup", "--data-dir", str(empty), "--out", str(tmp_path / "x.tar"))
    # Then it is refused, naming where it looked
    assert done.returncode == 1 and "no database at" in done.stderr
    # And given one whose database has a damaged page in an index
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    path = damaged / "agent-memory.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY)")
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("CREATE INDEX notes_by_body ON notes (body)")
    conn.executemany("INSERT INTO notes (body) VALUES (?)", [(f"n{n}" * 40,) for n in range(500)])
    conn.commit()
    page = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='notes_by_body'").fetchone()
    conn.close()
    with path.open("r+b") as file:
        file.seek((page[0] - 1) * 4096)
        file.write(b"\xa5" * 4096)
    done = cli("backup", "--data-dir", str(damaged), "--out", str(tmp_path / "y.tar"))
    # Then it is refused as damaged, and no backup file is left
    assert done.returncode == 1 and "is damaged" in done.stderr, done.stderr
    assert not (tmp_path / "y.tar").exists()
