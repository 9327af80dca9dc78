"""`agent-memory agents ...` and `agent-memory memories ...`: agents and their file memories on a
running server, through the SDK's typed calls, so an answer of the wrong shape is a ClientError
(one line, from `cli_errors`) and never a KeyError."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from .client import Client
from .client.models import Agent


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
            result: Any = _shown(client.agents.get(args.agent))
        elif args.action == "put":
            text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
            result = _shown(client.agents.put(args.agent, json.loads(text)))
        else:
            client.agents.delete(args.agent)
            result = {"deleted": args.agent}
    print(json.dumps(result, indent=2))
    return 0


def run_memories(args: argparse.Namespace) -> int:
    with Client(args.url, args.token) as client:
        memories = client.agents.memories
        if args.verb == "ls":
            for memory in memories.iter(args.agent, path_prefix=args.prefix):
                description = memory.description or ""
                print(f"{memory.path}\t{memory.bytes}\tv{memory.version}\t{description}")
        elif args.verb == "cat":
            sys.stdout.write(memories.get(args.agent, args.path).content or "")
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
