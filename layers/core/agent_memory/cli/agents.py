"""`agent-memory agents ...` and `agent-memory memories ...`: agents and their file memories on a
running server, through the SDK's typed calls, so an answer of the wrong shape is a ClientError
(one line, from errors.py) and never a KeyError."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..client import Client
from ..client.models import Agent
from .flags import action, client_flags
from .records import AS_OF_HELP, add_records_commands, instant


def run_agents(args: argparse.Namespace) -> int:
    with Client(args.url, args.token) as client:
        if args.action == "ls":
            for shown, agent in enumerate(_agents(client, args.cursor)):
                if args.limit is not None and shown >= args.limit:
                    break
                forked = f"forked from {agent.forked_from}" if agent.forked_from else ""
                row = f"{agent.id}\tv{agent.manifest_version}\t{_when(agent.updated_at)}\t{forked}"
                print(row.rstrip())
            return 0
        if args.action == "get":
            result: Any = _shown(client.agents.get(args.agent, as_of=instant(args.as_of)))
        elif args.action == "put":
            text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
            result = _shown(client.agents.put(args.agent, json.loads(text)))
        elif args.action == "consolidate":
            result = client.agents.consolidate(args.agent, dry_run=args.dry_run)
        else:
            client.agents.delete(args.agent)
            result = {"deleted": args.agent}
    print(json.dumps(result, indent=2))
    return 0


def run_memories(args: argparse.Namespace) -> int:
    with Client(args.url, args.token) as client:
        memories = client.agents.memories
        if args.verb == "ls":
            then = instant(args.as_of)
            for memory in memories.iter(args.agent, path_prefix=args.prefix, as_of=then):
                description = memory.description or ""
                print(f"{memory.path}\t{memory.bytes}\tv{memory.version}\t{description}")
        elif args.verb == "cat":
            then = instant(args.as_of)
            sys.stdout.write(memories.get(args.agent, args.path, as_of=then).content or "")
        elif args.verb == "put":
            content = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
            written = memories.put(args.agent, args.path, content, args.sha256)
            print(f"{written.path} v{written.version} {written.content_sha256}")
        elif args.verb == "rm":
            memories.delete(args.agent, args.path, recursive=args.recursive)
        else:
            for version in memories.iter_versions(args.agent, path=args.path):
                moved = f" (from {version.from_path})" if version.from_path else ""
                print(
                    f"{_when(version.at)}\t{version.operation}\t{version.path}{moved}\t"
                    f"{version.actor}\t{version.id}"
                )
    return 0


def _agents(client: Client, cursor: str | None) -> Iterator[Agent]:
    while True:
        page = client.agents.list(cursor=cursor)
        yield from page
        if not page.next:
            return
        cursor = page.next


def _shown(agent: Agent) -> dict[str, Any]:
    return agent.model_dump(mode="json", by_alias=True)


def _when(at: datetime) -> str:
    # As the API writes times: UTC with a Z.
    return at.isoformat().replace("+00:00", "Z")


def _memory_commands(parser: argparse.ArgumentParser) -> None:
    """`agents memories ...` (and its alias `memories ...`): an agent's /memories files."""
    client_flags(parser)
    verbs = parser.add_subparsers(
        dest="verb", required=True, metavar="ACTION", help="what to do with the memories"
    )
    agent_help = "the agent's id, such as teams/web/releases"
    path_help = "the memory's path: conventions/release.md or /memories/conventions/release.md"
    ls = action(verbs, "ls", "list memories: path, bytes, version, description")
    ls.add_argument("agent", help=agent_help)
    ls.add_argument("--prefix", help="only the memories in this folder")
    ls.add_argument("--as-of", help=AS_OF_HELP)
    cat = action(verbs, "cat", "print a memory's content")
    cat.add_argument("agent", help=agent_help)
    cat.add_argument("path", help=path_help)
    cat.add_argument("--as-of", help=AS_OF_HELP)
    put = action(verbs, "put", "create or replace a memory whole")
    put.add_argument("agent", help=agent_help)
    put.add_argument("path", help=path_help)
    put.add_argument("file", help="the file holding the content, or - for stdin")
    put.add_argument(
        "--sha256", help='write only while the memory has this content ("" = only a new one)'
    )
    rm = action(verbs, "rm", "delete a memory, or every memory in a folder")
    rm.add_argument("agent", help=agent_help)
    rm.add_argument("path", help=path_help + ", or a folder (with --recursive)")
    rm.add_argument(
        "-r", "--recursive", action="store_true", help="delete a folder: every memory in it"
    )
    versions = action(verbs, "versions", "every change, newest first")
    versions.add_argument("agent", help=agent_help)
    versions.add_argument("--path", help="only this memory's changes")
    parser.set_defaults(run=run_memories)


def add_agents_command(commands: Any) -> None:
    """`agents ...`, `memories ...` and `records ...`: agents, their files and the records
    awaiting approval on a running server."""
    agents = commands.add_parser("agents", help="read and change agents on a running server")
    client_flags(agents)
    actions = agents.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="what to do with agents"
    )
    ls = action(actions, "ls", "list agents: id, manifest version, last change")
    ls.add_argument("--limit", type=int, help="list at most this many")
    ls.add_argument("--cursor", help="start after the page this cursor names")
    get = action(actions, "get", "show an agent")
    get.add_argument("agent", help="the agent's id")
    get.add_argument("--as-of", help=AS_OF_HELP)
    action(actions, "rm", "delete an agent and all it owns").add_argument(
        "agent", help="the agent's id"
    )
    put = action(actions, "put", "save a manifest document as the agent's next version")
    put.add_argument("agent", help="the agent's id")
    put.add_argument("file", help="the manifest document (JSON), or - for stdin")
    consolidate = action(
        actions, "consolidate", "merge twins, resolve contradictions, expire stale events"
    )
    consolidate.add_argument("agent", help="the agent's id")
    consolidate.add_argument(
        "--dry-run", action="store_true", help="show the plan only: change nothing"
    )
    agents.set_defaults(run=run_agents)
    _memory_commands(actions.add_parser("memories", help="an agent's /memories files"))
    _memory_commands(commands.add_parser("memories", help="the same as `agents memories`"))
    add_records_commands(commands, actions)
