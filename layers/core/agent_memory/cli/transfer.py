"""`agent-memory export` and `agent-memory import`: move agents between services, either shape,
through the API (--url/--token, a credential with the admin scope), as one bundle file
(docs/export-import.md). Distinct from `backup`, which copies an embedded service's whole
database file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .errors import say
from .flags import client_flags


def _progress(line: str) -> None:
    # One line rewritten in place on a terminal; a line each where stderr is a file or a pipe.
    end = "" if sys.stderr.isatty() else "\n"
    start = "\r" if sys.stderr.isatty() else ""
    print(f"{start}agent-memory: {line}", end=end, file=sys.stderr, flush=True)


def run_export(args: argparse.Namespace) -> int:
    from ..bundle import export_bundle
    from ..client import Client

    with Client(args.url, args.token) as client:
        agents = args.agent or [agent.id for agent in client.agents.iter()]
        if not agents:
            say("no agent to export: the tenant has none")
            return 1
        totals = export_bundle(
            Path(args.out),
            agents,
            lambda agent, cursor: client.agents.export_page(agent, cursor, limit=args.page),
            _progress,
        )
    if sys.stderr.isatty():
        print(file=sys.stderr)
    sections = ", ".join(f"{n} {kind}s" for kind, n in totals.sections.items())
    print(f"exported {len(agents)} agent(s) to {args.out}: {sections}, {totals.events} events")
    return 0


def run_import(args: argparse.Namespace) -> int:
    from ..bundle import BundleError, import_bundle
    from ..client import Client

    state = Path(args.state) if args.state else None
    with Client(args.url, args.token) as client:
        try:
            totals = import_bundle(Path(args.file), client.agents.import_items, state, _progress)
        except BundleError as exc:
            say(f"bundle refused, nothing written: {exc}")
            return 2
    if sys.stderr.isatty():
        print(file=sys.stderr)
    resumed = f" (resumed after {totals.skipped} done before)" if totals.skipped else ""
    print(
        f"imported {args.file}{resumed}: {totals.written} items written, {totals.kept} kept "
        f"as they were; {totals.vectors_reused} vectors used as exported, "
        f"{totals.vectors_queued} to embed with this service's model"
    )
    return 0


def add_transfer_commands(commands: Any) -> None:
    export = commands.add_parser(
        "export",
        help="write agents of a running server to one bundle file",
        description="Read agents out through the API (a credential with the admin scope) into "
        "one bundle: manifest versions, records and file memories with every version, "
        "sessions, turns, executions, history events, and embeddings with their model.",
    )
    client_flags(export)
    which = export.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--agent", action="append", help="an agent's id (repeat for more)", metavar="ID"
    )
    which.add_argument("--all", action="store_true", help="every agent of the tenant")
    export.add_argument("--out", required=True, help="the bundle file to write")
    export.add_argument("--page", type=int, default=200, help="items a request (1-500)")
    export.set_defaults(run=run_export)
    load = commands.add_parser(
        "import",
        help="load a bundle file into a running server",
        description="Check the whole bundle (format, version, checksums), then write its items "
        "through the API as they were. Importing twice changes nothing; an interrupted import "
        "continues where it stopped (state kept in FILE.import-state).",
    )
    client_flags(load)
    load.add_argument("file", help="the bundle written by `agent-memory export`")
    load.add_argument("--state", help="where to keep how far it got (default FILE.import-state)")
    load.set_defaults(run=run_import)
