"""The examples of the README and of the docs pages run as written, in order, against a live
embedded server.

Each fenced `bash` and `python` block of README.md, and of every page in docs/ that has one, runs
as a newcomer would run them from a clone with `make serve` running: in a directory laid out as
the clone is (`data/token`, `.venv`, `examples/`), with only the address `http://127.0.0.1:8080`
changed to the test server's. Each page runs on a server of its own, so a page's examples stand
on their own. A block not meant to run is marked with `<!-- not run: why -->` on the line before
it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import agent_memory

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
ADDRESS = "http://127.0.0.1:8080"
FENCE = re.compile(r"^```(\S*)\s*$")
NOT_RUN = re.compile(r"^<!-- not run: .+ -->$")
RUNNABLE = ("bash", "python")
# What every run block must not print: an error answer of the API.
ERROR_ANSWER = re.compile(r'"error"\s*:\s*\{')


@dataclass(frozen=True)
class Block:
    language: str
    line: int  # of the opening fence, 1-based
    code: str
    run: bool


def blocks(text: str, name: str = "README.md") -> list[Block]:
    """The fenced blocks of a Markdown text, each with whether it is marked to run (`name`,
    the text's file, names it in an error)."""
    found: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            raise AssertionError(f"{name}:{i + 1}: a code block is never closed")
        marked = i > 0 and NOT_RUN.match(lines[i - 1].strip()) is not None
        code = "\n".join(lines[i + 1 : end]) + "\n"
        found.append(Block(opening[1], i + 1, code, not marked))
        i = end + 1
    return found


def pages() -> list[Path]:
    """README.md, then every docs page with a block to run."""
    docs = sorted(DOCS.glob("*.md"))
    return [README] + [page for page in docs if any(runnable(page))]


def runnable(page: Path) -> list[Block]:
    """The blocks of a page that run: those of bash or python not marked `<!-- not run -->`
    (the README's check holds that it has no other; a docs page's `text` block never runs)."""
    found = blocks(page.read_text(), page.relative_to(ROOT).as_posix())
    return [b for b in found if b.run and b.language in RUNNABLE]


def script(run: list[Block], workdir: Path, name: str = "README.md") -> str:
    """One bash script running the blocks in order (python blocks from files, with the
    virtualenv's python), each announced so a failure names its block."""
    parts = ["set -eo pipefail"]
    for n, block in enumerate(run):
        code = block.code.replace(ADDRESS, os.environ["AGENT_MEMORY_URL"])
        parts.append(f"echo '@@block {n} {name}:{block.line}'")
        if block.language == "bash":
            parts.append(code)
        else:
            source = workdir / f"block_{n}.py"
            source.write_text(code)
            parts.append(f"python {shlex.quote(str(source))}")
        parts.append("echo")  # an answer without a newline ends before the next marker
    return "\n".join(parts) + "\n"


def outputs(stdout: str) -> dict[int, str]:
    """What each block printed, by its number."""
    found: dict[int, str] = {}
    current = None
    for line in stdout.splitlines():
        marker = re.match(r"^@@block (\d+) ", line)
        if marker:
            current = int(marker[1])
            found[current] = ""
        elif current is not None:
            found[current] += line + "\n"
    return found


def answers(printed: str) -> list[object]:
    """The JSON answers a block printed one after another (curl adds no newline after each)."""
    decoder = json.JSONDecoder()
    found, at = [], 0
    while (at := _skip_space(printed, at)) < len(printed):
        value, at = decoder.raw_decode(printed, at)
        found.append(value)
    return found


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def a_clone(server_dir: Path, into: Path) -> Path:
    """A directory laid out as a clone with `make serve` running: its `data/token`, `.venv`
    (the test's own virtualenv) and `examples/` (copied: ingest writes a state file beside
    the file it loads)."""
    into.mkdir()
    (into / "data").symlink_to(server_dir)
    venv = Path(sys.prefix)
    if not (venv / "bin" / "activate").exists():
        pytest.fail(f"the tests run in a virtualenv (.venv): {venv} has no bin/activate")
    (into / ".venv").symlink_to(venv)
    shutil.copytree(ROOT / "examples", into / "examples")
    return into


def test_every_block_is_run_or_marked_not_run():
    # Given the README's code blocks
    found = blocks(README.read_text())
    # Then each is bash or python, or is marked with why it is not run
    unrunnable = [b.line for b in found if b.run and b.language not in RUNNABLE]
    assert not unrunnable, f"README.md lines {unrunnable}: mark them <!-- not run: why -->"
    # And the README is mostly run: the quick start, the CLI, the SDK and MCP
    assert sum(b.run for b in found) >= 8
    assert sum(not b.run for b in found) <= 3


def test_the_docs_pages_with_examples_are_run():
    # Given the docs pages
    run = {page.name for page in pages()}
    # Then the pages whose examples the README sends readers to are among those run
    assert {"README.md", "clients.md", "integrations.md", "manifest.md"} <= run
    # And a mark is only on a block that would otherwise run (a `text` block never runs)
    for page in sorted(DOCS.glob("*.md")):
        name = page.relative_to(ROOT).as_posix()
        marked = [b for b in blocks(page.read_text(), name) if not b.run]
        stray = [b.line for b in marked if b.language not in RUNNABLE]
        assert not stray, (
            f"{name} lines {stray}: a mark <!-- not run --> on a block that never runs"
        )


def test_the_block_finder_reads_marks_languages_and_unclosed_blocks():
    # Given a text with a marked block, a run one and a plain one
    text = "x\n<!-- not run: needs a key -->\n```python\nimport a\n```\n```bash\nls\n```\n```\nt\n```\n"
    # Then each is found with its language, first line and whether it runs
    assert blocks(text) == [
        Block("python", 3, "import a\n", False),
        Block("bash", 6, "ls\n", True),
        Block("", 9, "t\n", True),
    ]
    # And a block never closed is an error naming its line
    with pytest.raises(AssertionError, match="README.md:1: a code block is never closed"):
        blocks("```bash\nls\n")


def run_page(page: Path, server, tmp_path: Path) -> tuple[list[Block], dict[int, str]]:
    """Run a page's blocks in order, as one terminal session in a clone would; answer the
    blocks run and what each printed, by its number."""
    name = page.relative_to(ROOT).as_posix()
    clone = a_clone(server.data_dir, tmp_path / "clone")
    token = (server.data_dir / "token").read_text().strip()
    run = runnable(page)
    env = {
        **os.environ,
        "AGENT_MEMORY_URL": server.url,
        "AGENT_MEMORY_TOKEN": token,
        # `python` and `agent-memory` are the virtualenv's, as after `source .venv/bin/activate`
        "PATH": f"{clone / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    os.environ["AGENT_MEMORY_URL"] = server.url  # for script(): the address to run against
    try:
        program = script(run, tmp_path, name)
    finally:
        del os.environ["AGENT_MEMORY_URL"]
    done = subprocess.run(
        ["bash", "-c", program],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    said = outputs(done.stdout)
    last = max(said, default=None)
    where = f"{name}:{run[last].line}" if last is not None else "before the first block"
    # No block printed an API error (the first is named), and each ran to its end
    for n, printed in sorted(said.items()):
        assert not ERROR_ANSWER.search(printed), f"{name}:{run[n].line} answered: {printed}"
    assert done.returncode == 0, f"{where} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    assert len(said) == len(run)
    return run, said


def printer(run: list[Block], said: dict[int, str]):
    """What the one block starting with `first_line` printed."""
    text = {b.line: said[n] for n, b in enumerate(run)}

    def printed_by(first_line: str) -> str:
        (block,) = [b for b in run if b.code.startswith(first_line)]
        return text[block.line]

    return printed_by


def test_every_readme_block_runs_against_a_live_server(server, tmp_path):
    # Given a server and a directory laid out as the clone the README is read in
    # When every block runs, in order, as one terminal session would
    run, said = run_page(README, server, tmp_path)
    printed_by = printer(run, said)

    # Then what the README promises is what happened: the health check answered
    assert answers(printed_by("export AGENT_MEMORY_URL")) == [
        {"status": "ok", "version": agent_memory.__version__}
    ]
    # session 1's review kept the two lasting facts in agent scope and its task in session scope
    *_, kept = answers(printed_by('curl -s -X POST -H "$AUTH" $A/-/sessions -d \'{"id": "monday"}'))
    assert sorted((r["summary"], r["scope"]) for r in kept["records"]) == [
        ("User and others ship the web app on Tuesdays, never on a Friday", "agent"),
        ("User is drafting the 2.4 release notes", "session"),
        ("User works at Acme Corp as a release engineer", "agent"),
    ]
    # session 2's recall returned the lasting facts and not session 1's task
    _, _, recall, _ = answers(
        printed_by('curl -s -X POST -H "$AUTH" $A/-/sessions -d \'{"id": "thursday"}')
    )
    assert sorted(r["summary"] for r in recall["records"]) == [
        "User and others ship the web app on Tuesdays, never on a Friday",
        "User works at Acme Corp as a release engineer",
    ]
    assert "release engineer" in recall["text"] and "2.4" not in recall["text"]
    # the one search found what was learned
    search = printed_by('curl -s -H "$AUTH" "$A/-/search')
    assert "ship the web app on Tuesdays" in search and "never on a Friday" in search
    # the CLI ran from the virtualenv
    cli = printed_by("source .venv/bin/activate")
    assert cli.startswith("agent-memory ")
    assert "teams/web/releases" in cli and "checklist.md" in cli
    # the SDK's later session recalled what its first saved, and its note was written
    sdk = printed_by("from agent_memory.client import Client\n\nAGENT")
    assert "Hotfixes need Dana's approval" in sdk  # the recalled text
    assert "\nrecord " in sdk and "/memories/checklist.md" in sdk  # a search hit, a listed note
    assert sdk.rstrip().endswith("- deploy")
    # a second MCP conversation found what the first added
    assert "The on-call rota lives in PagerDuty" in printed_by("import asyncio")


def test_the_clients_page_runs_against_a_live_server(server, tmp_path):
    # Given a fresh server, when the clients page's blocks run in order
    run, said = run_page(DOCS / "clients.md", server, tmp_path)
    printed_by = printer(run, said)
    # Then the CLI saved the manifest from standard input and lists the agent
    assert "teams/web/releases" in printed_by("source .venv/bin/activate")
    # And ingest loaded the example file, whose history search then finds what it said
    assert "eu-west-1" in printed_by("agent-memory ingest examples/history.jsonl")


def test_the_integrations_page_runs_against_a_live_server(server, tmp_path):
    # Given a fresh server, when the integrations page's blocks run in order
    run, said = run_page(DOCS / "integrations.md", server, tmp_path)
    printed_by = printer(run, said)
    # Then Claude's memory tool made its agent, created and viewed its note
    claude = printed_by(
        "from agent_memory.client import Client\nfrom agent_memory.integrations.anthropic"
    )
    assert "File created successfully at: /memories/prefs.md" in claude
    assert "tea" in claude.split("File created successfully", 1)[1]
    # And the LangGraph store kept its item and found it by a query
    langgraph = printed_by(
        "from agent_memory.client import Client\nfrom agent_memory.integrations.langgraph"
    )
    assert "{'theme': 'dark', 'editor': 'vim'}" in langgraph
    assert "prefs {'theme': 'dark', 'editor': 'vim'}" in langgraph


@pytest.mark.parametrize(
    "page",
    [p for p in pages() if p.name not in ("README.md", "clients.md", "integrations.md")],
    ids=lambda p: p.name,
)
def test_every_other_docs_page_runs_against_a_live_server(page, server, tmp_path):
    # Given a fresh server, when a docs page's blocks run in order
    # Then each ran to its end without an API error
    run, said = run_page(page, server, tmp_path)
    assert len(said) == len(run) > 0
