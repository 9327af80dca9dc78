"""`agent-memory ingest`: a JSON Lines load of appends and commits through a running server."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from .flags import client_flags


def _ingest(args: argparse.Namespace) -> int:
    """Load a JSON Lines file of ingestion messages through a running server: in batches,
    several at once, each session's messages in order; resumable and idempotent."""
    from ..bulk import load, read_lines
    from ..client import Client

    if not 1 <= args.batch <= 500 or not 1 <= args.senders <= 64:
        print("agent-memory: --batch is 1-500 and --senders 1-64", file=sys.stderr)
        return 2
    source = None if args.file == "-" else Path(args.file)
    if source is None:
        lines = read_lines(sys.stdin)
    else:
        with source.open(encoding="utf-8") as stream:
            lines = read_lines(stream)
    state = None
    if source is not None and not args.no_resume:
        state = Path(args.state) if args.state else source.with_name(source.name + ".ingest-state")
        if args.restart and state.exists():
            state.unlink()
    bar = _ProgressBar() if sys.stderr.isatty() else None
    done = load(
        Client(args.url, args.token),
        lines,
        source=source,
        state=state,
        batch=args.batch,
        senders=args.senders,
        on_progress=bar.show if bar else None,
        on_failure=lambda number, problem: print(f"line {number}: {problem}", file=sys.stderr),
    )
    if bar is not None:
        bar.show(done, final=True)
    summary: dict[str, Any] = {**done.counts, "events": done.stored_events}
    summary["events_per_second"] = round(done.rate)
    if done.resumed_after:
        summary["resumed_after_line"] = done.resumed_after
    print(json.dumps(summary))
    return 1 if done.counts["failed"] else 0


class _ProgressBar:
    """One line on the terminal, redrawn at most five times a second."""

    def __init__(self) -> None:
        self._shown = 0.0

    def show(self, progress: Any, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self._shown < 0.2:
            return
        self._shown = now
        total = max(progress.events, 1)
        filled = int(30 * progress.done_events / total)
        eta = progress.eta
        left = f"ETA {int(eta) // 60}:{int(eta) % 60:02d}" if eta is not None else "ETA -"
        print(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {progress.done_events}/{progress.events}"
            f" events  {progress.rate:,.0f} events/s  {left}  failed {progress.counts['failed']}",
            end="\n" if final else "",
            file=sys.stderr,
            flush=True,
        )


def add_ingest_command(commands: Any) -> None:
    """`ingest`: a JSON Lines load of appends and commits."""
    ingest = commands.add_parser(
        "ingest", help="apply a JSON Lines file of appends and commits (idempotent)"
    )
    client_flags(ingest)
    ingest.add_argument(
        "file",
        help='JSON Lines: {"op": "session"|"begin"|"events"|"commit"|'
        '"rollback", "agent", "session", "turn", ...}; - for stdin',
    )
    ingest.add_argument(
        "--batch", type=int, default=500, help="messages a request, 1-500 (default 500)"
    )
    ingest.add_argument(
        "--senders", type=int, default=2, help="requests in flight at once (default 2)"
    )
    ingest.add_argument(
        "--state",
        help="where the load notes how far it got, to resume after an interruption"
        " (default FILE.ingest-state)",
    )
    ingest.add_argument("--restart", action="store_true", help="forget how far an earlier load got")
    ingest.add_argument(
        "--no-resume", action="store_true", help="keep no state file (every line is sent)"
    )
    ingest.set_defaults(run=_ingest)
