"""`agent-memory`: serve the embedded shape, manage tokens, and talk to a running server."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from . import __version__
from .cli_agents import run_agents, run_memories
from .cli_errors import run_reporting, say, settings_problems
from .cli_mcp import add_mcp_command
from .tenant_reset import add_reset


def _serve(args: argparse.Namespace) -> int:
    from .local.server import serve
    from .settings import Settings

    overrides: dict[str, Any] = {
        k: v
        for k, v in {
            "host": args.host,
            "port": args.port,
            "data_dir": args.data_dir,
            "token": args.token,
        }.items()
        if v is not None
    }
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        for problem in settings_problems(exc):
            say(problem)
        return 2
    from .local.server import PortUnavailable

    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(message)s")
    try:
        serve(settings)
    except PortUnavailable as exc:
        print(f"agent-memory: {exc}", file=sys.stderr)
        return 1
    return 0


def _reindex(args: argparse.Namespace) -> int:
    from .bootstrap import build_services
    from .local.reindex import reindex
    from .settings import Settings

    overrides = {"data_dir": args.data_dir} if args.data_dir else {}
    settings = Settings(**overrides)
    if settings.store == "sqlite" and not settings.database_path.exists():
        # Opening it would make a new, empty database: a mistyped directory is said so instead.
        print(
            f"agent-memory: no database at {settings.database_path}: "
            "name the --data-dir that `agent-memory serve` uses",
            file=sys.stderr,
        )
        return 1
    services = build_services(settings)
    progress = _ProgressLine() if sys.stderr.isatty() else None
    try:
        done = reindex(services, everything=args.all, progress=progress)
    finally:
        services.close()
        if progress is not None:
            progress.end()
    print(json.dumps(done.__dict__))
    return 0


class _ProgressLine:
    """One line on a terminal, rewritten in place as the reindex goes."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, done: Any, total: int) -> None:
        self.shown = True
        print(
            f"\rreindexing: {done.agents}/{total} agents, {done.records} records, "
            f"{done.files} files, {done.events} events, {done.vectors} embedded",
            end="",
            file=sys.stderr,
            flush=True,
        )

    def end(self) -> None:
        if self.shown:  # ends the line; nothing stale: nothing was shown, nothing to end
            print(file=sys.stderr)


def _data_dir(args: argparse.Namespace) -> Path:
    from .settings import Settings

    return Path(args.data_dir) if args.data_dir else Settings().data_dir


def _csv(text: str | None) -> frozenset[str] | None:
    return None if text is None else frozenset(p.strip() for p in text.split(",") if p.strip())


def _token_create(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from .domain.kernel.auth import ALL_ROLES
    from .local.tokens import LEGACY_SCOPES, TokenError, add_token, parse_expiry

    try:
        token, grant = add_token(
            _data_dir(args),
            args.tenant,
            scopes=_csv(args.scopes) or LEGACY_SCOPES,
            subject=args.subject,
            roles=_csv(args.roles) or ALL_ROLES,
            expires=parse_expiry(args.expires, datetime.now(UTC)),
        )
    except TokenError as exc:
        print(f"agent-memory: {exc}", file=sys.stderr)
        return 2
    # The token is the last word: `$(agent-memory token create ... | awk '{print $NF}')`.
    print(f"token {grant.id} for tenant {grant.tenant} (shown once, kept as a hash): {token}")
    return 0


def _token_ls(args: argparse.Namespace) -> int:
    from .local.tokens import list_tokens

    print("id\ttenant\tsubject\tscopes\troles\texpires")
    for grant in list_tokens(_data_dir(args)):
        expires = grant.expires.isoformat() if grant.expires else "never"
        fields = [grant.id, grant.tenant, grant.who, ",".join(sorted(grant.scopes))]
        print("\t".join([*fields, ",".join(sorted(grant.roles)), expires]))
    return 0


def _token_revoke(args: argparse.Namespace) -> int:
    from .local.tokens import TokenError, revoke_token

    try:
        revoke_token(_data_dir(args), args.id)
    except TokenError as exc:
        print(f"agent-memory: {exc}", file=sys.stderr)
        return 1
    print(f"revoked {args.id}")
    return 0


def _tenant_limits(args: argparse.Namespace) -> int:
    from .client import Client

    client = Client(args.url, args.token)
    try:
        if args.memory_bytes is None and args.memories_per_agent is None:
            limits = client.tenant_limits()
        else:
            limits = client.set_tenant_limits(args.memory_bytes, args.memories_per_agent)
    finally:
        client.close()
    for name, value in limits.items():
        print(f"{name}\t{value}")
    return 0


def _ingest(args: argparse.Namespace) -> int:
    """Load a JSON Lines file of ingestion messages through a running server: in batches,
    several at once, each session's messages in order; resumable and idempotent."""
    from .bulk import load, read_lines
    from .client import Client

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


def _client_flags(parser: argparse.ArgumentParser, *, after_action: bool = False) -> None:
    """--url and --token; on an action's own parser they may follow it (`agents ls --url U`)
    and, when absent there, leave what was given before the action."""
    default = argparse.SUPPRESS if after_action else None
    parser.add_argument(
        "--url",
        default=default,
        help="server URL (default $AGENT_MEMORY_URL or 127.0.0.1:8080)",
    )
    parser.add_argument("--token", default=default, help="API token (default $AGENT_MEMORY_TOKEN)")


def _action(actions: Any, name: str, text: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = actions.add_parser(name, help=text, description=text)
    _client_flags(parser, after_action=True)
    return parser


def _memory_commands(parser: argparse.ArgumentParser) -> None:
    """`agents memories ...` (and its alias `memories ...`): an agent's /memories files."""
    _client_flags(parser)
    verbs = parser.add_subparsers(
        dest="verb", required=True, metavar="ACTION", help="what to do with the memories"
    )
    agent_help = "the agent's id, such as teams/web/releases"
    path_help = "the memory's path: conventions/release.md or /memories/conventions/release.md"
    ls = _action(verbs, "ls", "list memories: path, bytes, version, description")
    ls.add_argument("agent", help=agent_help)
    ls.add_argument("--prefix", help="only the memories in this folder")
    cat = _action(verbs, "cat", "print a memory's content")
    cat.add_argument("agent", help=agent_help)
    cat.add_argument("path", help=path_help)
    put = _action(verbs, "put", "create or replace a memory whole")
    put.add_argument("agent", help=agent_help)
    put.add_argument("path", help=path_help)
    put.add_argument("file", help="the file holding the content, or - for stdin")
    put.add_argument(
        "--sha256", help='write only while the memory has this content ("" = only a new one)'
    )
    rm = _action(verbs, "rm", "delete a memory, or every memory in a folder")
    rm.add_argument("agent", help=agent_help)
    rm.add_argument("path", help=path_help + ", or a folder (with --recursive)")
    rm.add_argument(
        "-r", "--recursive", action="store_true", help="delete a folder: every memory in it"
    )
    versions = _action(verbs, "versions", "every change, newest first")
    versions.add_argument("agent", help=agent_help)
    versions.add_argument("--path", help="only this memory's changes")
    parser.set_defaults(run=run_memories)


_DATA_DIR_HELP = "where the database and the tokens live (default ./data)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agent-memory", description=__doc__)
    parser.add_argument("--version", action="version", version=f"agent-memory {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="what to run"
    )
    # Each adds its command to `commands`, in the order --help lists them.
    _add_serve(commands)
    _add_reindex(commands)
    _add_token(commands)
    _add_agents(commands)
    _add_tenant(commands)
    _add_ingest(commands)
    add_mcp_command(commands, _client_flags)
    return parser


def _add_serve(commands: Any) -> None:
    """`serve`: the embedded server."""
    serve = commands.add_parser("serve", help="run the embedded server (SQLite, 127.0.0.1:8080)")
    serve.add_argument("--host", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8080; 0 picks a free one)")
    serve.add_argument("--data-dir", help=_DATA_DIR_HELP)
    serve.add_argument("--token", help="use this API token instead of <data-dir>/token")
    serve.set_defaults(run=_serve)


def _add_reindex(commands: Any) -> None:
    """`reindex`: rebuild the embedded search index."""
    reindex = commands.add_parser(
        "reindex", help="re-embed and rebuild the embedded search index (after a model change)"
    )
    reindex.add_argument("--data-dir", help=_DATA_DIR_HELP + "; it must hold a database")
    reindex.add_argument("--all", action="store_true", help="even when nothing is stale")
    reindex.set_defaults(run=_reindex)


def _add_token(commands: Any) -> None:
    """`token create|ls|revoke`: the embedded server's API tokens."""
    token = commands.add_parser("token", help="manage API tokens of the embedded server")
    token_commands = token.add_subparsers(
        dest="token_command", required=True, metavar="ACTION", help="what to do with tokens"
    )
    create = token_commands.add_parser(
        "create", help="make a token for a tenant; the token is the last word printed"
    )
    create.add_argument("--tenant", required=True, help="the tenant the token acts for")
    create.add_argument(
        "--scopes",
        help="comma-separated: agents:read, agents:write, sessions:own, admin "
        "(default agents:read,agents:write,sessions:own)",
    )
    create.add_argument(
        "--subject", help="who the token speaks for; the sessions it starts are its (default: id)"
    )
    create.add_argument(
        "--roles",
        help="comma-separated caller roles it may state: agent, helper, programmatic, "
        "agent_as_tool (default: all)",
    )
    create.add_argument("--expires", help="lifetime such as 30d, 12h or 45m (default: never)")
    create.add_argument("--data-dir", help=_DATA_DIR_HELP)
    create.set_defaults(run=_token_create)
    ls_tokens = token_commands.add_parser(
        "ls", help="list tokens: id, tenant, subject, scopes, roles, expiry (never the token)"
    )
    ls_tokens.add_argument("--data-dir", help=_DATA_DIR_HELP)
    ls_tokens.set_defaults(run=_token_ls)
    revoke = token_commands.add_parser("revoke", help="revoke a token by its id")
    revoke.add_argument("id", help="the token's id (see token ls)")
    revoke.add_argument("--data-dir", help=_DATA_DIR_HELP)
    revoke.set_defaults(run=_token_revoke)


def _add_agents(commands: Any) -> None:
    """`agents ...` and `memories ...`: agents and their files on a running server."""
    agents = commands.add_parser("agents", help="read and change agents on a running server")
    _client_flags(agents)
    actions = agents.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="what to do with agents"
    )
    ls = _action(actions, "ls", "list agents: id, manifest version, last change")
    ls.add_argument("--limit", type=int, help="list at most this many")
    ls.add_argument("--cursor", help="start after the page this cursor names")
    for name, text in (("get", "show an agent"), ("rm", "delete an agent and all it owns")):
        _action(actions, name, text).add_argument("agent", help="the agent's id")
    put = _action(actions, "put", "save a manifest document as the agent's next version")
    put.add_argument("agent", help="the agent's id")
    put.add_argument("file", help="the manifest document (JSON), or - for stdin")
    agents.set_defaults(run=run_agents)
    _memory_commands(actions.add_parser("memories", help="an agent's /memories files"))
    _memory_commands(commands.add_parser("memories", help="the same as `agents memories`"))


def _add_tenant(commands: Any) -> None:
    """`tenant limits|reset`: the caller's tenant on a running server."""
    tenant = commands.add_parser("tenant", help="the caller's tenant on a running server")
    _client_flags(tenant)
    tenant_actions = tenant.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="what to read or set"
    )
    limits = _action(
        tenant_actions, "limits", "show the tenant's limits, or set them (takes admin)"
    )
    limits.add_argument("--memory-bytes", type=int, help="bytes a memory may hold")
    limits.add_argument("--memories-per-agent", type=int, help="memories an agent may keep")
    limits.set_defaults(run=_tenant_limits)
    add_reset(tenant_actions, _action)


def _add_ingest(commands: Any) -> None:
    """`ingest`: a JSON Lines load of appends and commits."""
    ingest = commands.add_parser(
        "ingest", help="apply a JSON Lines file of appends and commits (idempotent)"
    )
    _client_flags(ingest)
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


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_reporting(args.run, args)


if __name__ == "__main__":
    sys.exit(main())
