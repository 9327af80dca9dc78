"""`agent-memory mcp`: one agent's memory served to an MCP host (integrations/mcp.py).

The server checks the agent before it serves: it stops at once, saying what to do, when the
agent does not exist or its manifest does not offer what the server needs (integrations/
agent_check.py); `--create-agent` makes an agent that does not exist with a manifest that does.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from typing import Any

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def run_mcp(args: argparse.Namespace) -> int:
    """Serve one agent's memory to an MCP host (see agent_memory.integrations.mcp)."""
    if args.transport == "http" and args.host not in LOOPBACK:
        # Whoever reaches the port acts with this token: the server has no sign-in of its own.
        print(
            "agent-memory: the MCP server has no authentication of its own and listens on a "
            "loopback address only (127.0.0.1, localhost or ::1)",
            file=sys.stderr,
        )
        return 2
    try:
        import anyio

        from ..integrations.mcp import MemoryMcp
    except ImportError as exc:
        print(
            f"agent-memory: the MCP server needs the mcp extra (pip install "
            f"'agent-memory[mcp]'): {exc}",
            file=sys.stderr,
        )
        return 1
    from ..client import Client
    from ..integrations.agent_check import AgentNotReady

    # stdout is the stdio transport's: logs go to stderr.
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s")
    server = MemoryMcp(Client(args.url, args.token), args.agent, args.session)
    try:
        server.check(create=args.create_agent)
    except AgentNotReady as exc:
        print(f"agent-memory: {exc.message}", file=sys.stderr)
        return 1
    if args.transport == "stdio":
        anyio.run(server.run_stdio)
    else:
        anyio.run(server.run_http, args.host, args.port)
    return 0


def add_mcp_command(commands: Any, client_flags: Callable[[argparse.ArgumentParser], None]) -> None:
    """`mcp`: an agent's memory served to an MCP host."""
    mcp = commands.add_parser(
        "mcp",
        help="serve an agent's memory to an MCP host (stdio or streamable HTTP)",
        description="One session per MCP connection (or --session), one turn per tool call, "
        "committed at once; a refused call rolls its turn back. A fact the model adds with "
        'scope "agent" is found from every later connection.',
    )
    client_flags(mcp)
    mcp.add_argument("--agent", required=True, help="the agent's id, such as teams/web/releases")
    mcp.add_argument("--session", help="work in this session (made when absent) for every call")
    mcp.add_argument(
        "--create-agent",
        action="store_true",
        help="make the agent when it does not exist, with memory on, both scopes, the record "
        "tools and history (an agent that exists is never changed)",
    )
    mcp.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default) or streamable HTTP at http://HOST:PORT/mcp",
    )
    mcp.add_argument(
        "--host", default="127.0.0.1", help="http: a loopback address to bind (127.0.0.1)"
    )
    mcp.add_argument("--port", type=int, default=8000, help="http: port (default 8000)")
    mcp.set_defaults(run=run_mcp)
