"""`agent-memory`: serve the embedded shape, manage tokens, and talk to a running server."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .client import ConnectionFailed


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
        for err in exc.errors(include_url=False):
            print(f"agent-memory: {err['msg']}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(message)s")
    serve(settings)
    return 0


def _reindex(args: argparse.Namespace) -> int:
    from .bootstrap import build_services
    from .local.reindex import reindex
    from .settings import Settings

    overrides = {"data_dir": args.data_dir} if args.data_dir else {}
    services = build_services(Settings(**overrides))
    try:
        done = reindex(services, everything=args.all)
    finally:
        services.close()
    print(json.dumps(done.__dict__))
    return 0


def _token_create(args: argparse.Namespace) -> int:
    from .local.tokens import add_token
    from .settings import Settings

    data_dir = Path(args.data_dir) if args.data_dir else Settings().data_dir
    print(add_token(data_dir, args.tenant))
    return 0


def _agents(args: argparse.Namespace) -> int:
    from .client import ApiError, Client

    client = Client(args.url, args.token)
    try:
        if args.action == "ls":
            result: Any = client.list_agents(limit=args.limit, cursor=args.cursor)
        elif args.action == "get":
            result = client.get_agent(args.agent)
        elif args.action == "put":
            text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
            result = client.put_agent(args.agent, json.loads(text))
        else:
            client.delete_agent(args.agent)
            result = {"deleted": args.agent}
    except ApiError as exc:
        print(f"agent-memory: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2))
    return 0


def _memories(args: argparse.Namespace) -> int:
    from .client import ApiError, Client

    client = Client(args.url, args.token)
    try:
        if args.action == "ls":
            for memory in _all_pages(
                lambda cursor: client.list_memories(args.agent, prefix=args.prefix, cursor=cursor),
                "memories",
            ):
                description = memory.get("description") or ""
                print(f"{memory['path']}\t{memory['bytes']}\tv{memory['version']}\t{description}")
        elif args.action == "cat":
            sys.stdout.write(client.get_memory(args.agent, args.path)["content"])
        elif args.action == "put":
            content = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
            written = client.put_memory(args.agent, args.path, content, args.sha256)
            print(f"{written['path']} v{written['version']} {written['contentSha256']}")
        elif args.action == "rm":
            client.delete_memory(args.agent, args.path)
        else:
            for version in _all_pages(
                lambda cursor: client.memory_versions(args.agent, path=args.path, cursor=cursor),
                "versions",
            ):
                moved = f" (from {version['fromPath']})" if version.get("fromPath") else ""
                print(
                    f"{version['at']}\t{version['operation']}\t{version['path']}{moved}\t"
                    f"{version['actor']}\t{version['id']}"
                )
    except ApiError as exc:
        print(f"agent-memory: {exc}", file=sys.stderr)
        return 1
    return 0


def _ingest(args: argparse.Namespace) -> int:
    """Apply a JSON Lines file of ingestion messages through a running server, idempotently."""
    from .client import ApiError, Client
    from .domain.errors import InvalidRequest
    from .domain.services.ingest import Append, Begin, Commit, OpenSession, parse_message

    client = Client(args.url, args.token)
    counts = {"applied": 0, "already applied": 0, "failed": 0}
    stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    with stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                message = parse_message(json.loads(line))
            except (ValueError, InvalidRequest) as exc:
                print(f"line {number}: {exc}", file=sys.stderr)
                counts["failed"] += 1
                continue
            base = f"/v1/agents/{message.agent}/-/sessions"
            try:
                if isinstance(message, OpenSession):
                    client.request("POST", base, {"id": message.session})
                elif isinstance(message, Begin):
                    _ensure_session(client, base, message.session)
                    client.request(
                        "POST",
                        f"{base}/{message.session}/turns",
                        {
                            "id": message.turn,
                            "preview": message.preview,
                            "started_by": message.started_by,
                            "trigger_run_id": message.trigger_run_id,
                        },
                    )
                else:
                    turn = f"{base}/{message.session}/turns/{message.turn}"
                    if isinstance(message, Append):
                        events = [
                            e.model_dump(mode="json", exclude_none=True) for e in message.events
                        ]
                        client.request("POST", f"{turn}/events", {"events": events})
                    else:
                        end = "commit" if isinstance(message, Commit) else "rollback"
                        client.request("POST", f"{turn}/{end}")
                counts["applied"] += 1
            except ApiError as exc:
                if _redelivered(message, exc):
                    counts["already applied"] += 1
                else:
                    print(f"line {number}: {exc}", file=sys.stderr)
                    counts["failed"] += 1
    print(json.dumps(counts))
    return 1 if counts["failed"] else 0


def _ensure_session(client: Any, base: str, session: str) -> None:
    from .client import ApiError

    try:
        client.request("POST", base, {"id": session})
    except ApiError as exc:
        if exc.code != "session_exists":
            raise


def _redelivered(message: Any, exc: Any) -> bool:
    from .domain.services.ingest import Append, Begin, Commit, OpenSession

    if isinstance(message, OpenSession):
        return bool(exc.code == "session_exists")
    if isinstance(message, Begin):
        return bool(exc.code == "turn_exists")
    if isinstance(message, Append):
        # Kept before the turn ended (a line sent again), not arriving after its commit.
        return bool(exc.code == "turn_closed" and exc.body["error"].get("alreadyKept") is True)
    done = "committed" if isinstance(message, Commit) else "rolled_back"
    return bool(exc.code == "turn_closed" and exc.body["error"].get("status") == done)


def _all_pages(fetch: Any, key: str) -> Any:
    cursor = None
    while True:
        page = fetch(cursor)
        yield from page[key]
        cursor = page.get("next")
        if not cursor:
            return


def _client_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="server URL (default $AGENT_MEMORY_URL or 127.0.0.1:8080)")
    parser.add_argument("--token", help="API token (default $AGENT_MEMORY_TOKEN)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agent-memory", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the embedded server (SQLite, 127.0.0.1:8080)")
    serve.add_argument("--host", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8080; 0 picks a free one)")
    serve.add_argument("--data-dir", help="where the database and token live (default ./data)")
    serve.add_argument("--token", help="use this API token instead of <data-dir>/token")
    serve.set_defaults(run=_serve)

    reindex = commands.add_parser(
        "reindex", help="re-embed and rebuild the embedded search index (after a model change)"
    )
    reindex.add_argument("--data-dir")
    reindex.add_argument("--all", action="store_true", help="even when nothing is stale")
    reindex.set_defaults(run=_reindex)

    token = commands.add_parser("token", help="manage API tokens of the embedded server")
    token_commands = token.add_subparsers(dest="token_command", required=True)
    create = token_commands.add_parser("create", help="make a token for a tenant")
    create.add_argument("--tenant", required=True)
    create.add_argument("--data-dir")
    create.set_defaults(run=_token_create)

    agents = commands.add_parser("agents", help="read and change agents on a running server")
    agents.add_argument("--url", help="server URL (default $AGENT_MEMORY_URL or 127.0.0.1:8080)")
    agents.add_argument("--token", help="API token (default $AGENT_MEMORY_TOKEN)")
    actions = agents.add_subparsers(dest="action", required=True)
    ls = actions.add_parser("ls", help="list agents")
    ls.add_argument("--limit", type=int)
    ls.add_argument("--cursor")
    for name, text in (("get", "show an agent"), ("rm", "delete an agent and all it owns")):
        actions.add_parser(name, help=text).add_argument("agent")
    put = actions.add_parser("put", help="save a manifest document (file or - for stdin)")
    put.add_argument("agent")
    put.add_argument("file")
    agents.set_defaults(run=_agents)

    memories = commands.add_parser("memories", help="an agent's /memories files")
    _client_flags(memories)
    verbs = memories.add_subparsers(dest="action", required=True)
    ls = verbs.add_parser("ls", help="list memories: path, bytes, version, description")
    ls.add_argument("agent")
    ls.add_argument("--prefix", help="only this folder")
    cat = verbs.add_parser("cat", help="print a memory")
    cat.add_argument("agent")
    cat.add_argument("path")
    put_memory = verbs.add_parser("put", help="create or replace a memory from a file or -")
    put_memory.add_argument("agent")
    put_memory.add_argument("path")
    put_memory.add_argument("file")
    put_memory.add_argument("--sha256", help='write only while it has this content ("" = new)')
    rm = verbs.add_parser("rm", help="delete a memory, or every memory in a folder")
    rm.add_argument("agent")
    rm.add_argument("path")
    versions = verbs.add_parser("versions", help="every change, newest first")
    versions.add_argument("agent")
    versions.add_argument("--path")
    memories.set_defaults(run=_memories)

    ingest = commands.add_parser(
        "ingest", help="apply a JSON Lines file of appends and commits (idempotent)"
    )
    _client_flags(ingest)
    ingest.add_argument(
        "file",
        help='JSON Lines: {"op": "session"|"begin"|"events"|"commit"|'
        '"rollback", "agent", "session", "turn", ...}; - for stdin',
    )
    ingest.set_defaults(run=_ingest)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except ConnectionFailed as exc:
        url = getattr(args, "url", None) or exc.url
        print(f"agent-memory: cannot reach {url}: {exc.reason}", file=sys.stderr)
    except json.JSONDecodeError as exc:
        print(f"agent-memory: the input is not JSON: {exc}", file=sys.stderr)
    except OSError as exc:
        print(
            f"agent-memory: {exc.strerror or exc}: {exc.filename or ''}".rstrip(), file=sys.stderr
        )
    return 1


if __name__ == "__main__":
    sys.exit(main())
