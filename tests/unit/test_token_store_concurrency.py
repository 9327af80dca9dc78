"""Tokens changed by separate processes at the same moment: every change lands (the tokens
file is changed under a lock shared by every process, and replaced whole)."""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from agent_memory.cli import main
from agent_memory.local.tokens import TokenBook, add_token, list_tokens, revoke_token

pytestmark = pytest.mark.unit

AT_ONCE = 20


def _run_cli(argv: list[str], start: Any, out: Any) -> None:
    """One `agent-memory token ...` in its own process, begun with the others at once."""
    start.wait(timeout=30)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    out.put((argv[1], code, printed.getvalue()))


def test_creates_and_revokes_made_at_once_by_separate_processes_all_land(tmp_path: Path):
    # Given a running server's tokens and ten tokens made before
    book, first = TokenBook.load(tmp_path, None)
    doomed = [add_token(tmp_path, "acme") for _ in range(AT_ONCE // 2)]
    d = str(tmp_path)
    # When ten processes revoke one each and ten create one each, all at the same moment
    ctx = multiprocessing.get_context("fork")
    start, out = ctx.Barrier(AT_ONCE), ctx.Queue()
    argvs = [["token", "revoke", grant.id, "--data-dir", d] for _, grant in doomed]
    argvs += [
        ["token", "create", "--tenant", f"t{i}", "--data-dir", d] for i in range(AT_ONCE // 2)
    ]
    procs = [ctx.Process(target=_run_cli, args=(argv, start, out)) for argv in argvs]
    for proc in procs:
        proc.start()
    results = [out.get(timeout=60) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
        assert proc.exitcode == 0
    # Then each reported success
    assert sorted(code for _, code, _ in results) == [0] * AT_ONCE
    made = [text.split()[-1] for action, _, text in results if action == "create"]
    assert len(made) == AT_ONCE // 2
    # And the server refuses every revoked token and accepts every new one (and the first)
    assert [book.grant_for(token) for token, _ in doomed] == [None] * (AT_ONCE // 2)
    assert sorted(book.grant_for(token).tenant for token in made) == sorted(
        f"t{i}" for i in range(AT_ONCE // 2)
    )
    assert book.grant_for(first).id == "first"
    # And a fresh read of the file agrees: the first and the ten new, nothing else
    assert len(list_tokens(tmp_path)) == 1 + AT_ONCE // 2
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".tokens.json.")]


def test_a_change_with_the_same_stamp_and_size_as_the_last_read_is_still_seen(tmp_path: Path):
    # Given a server that has just read the tokens file
    book, _ = TokenBook.load(tmp_path, None)
    kept, _ = add_token(tmp_path, "acme")
    assert book.grant_for(kept) is not None
    path = tmp_path / "tokens.json"
    read = path.stat()
    # When a revoke and a create follow within one tick of the file system's clock: the file
    # has the same size (ids and hashes are of fixed length) and the same modification stamp
    revoke_token(tmp_path, list_tokens(tmp_path)[-1].id)
    new, _ = add_token(tmp_path, "acme")
    os.utime(path, ns=(read.st_atime_ns, read.st_mtime_ns))
    assert path.stat().st_size == read.st_size
    # Then the server sees both
    assert book.grant_for(kept) is None
    assert book.grant_for(new).tenant == "acme"
