"""`agent-memory mcp` driven by the mcp package's own client, over stdio (the CLI spawned as a
subprocess) and streamable HTTP (the CLI serving on a free port), against the embedded server.

What a call maps onto: one session for the server's life (or `--session`), one turn per tool
call committed at once (the next call sees its write; the record names its session and turn),
and a refused call rolled back (nothing applied, the service's text returned as a tool error).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client as McpClient
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from agent_memory.client import ApiError
from agent_memory.domain.records.io import AddMemoryIn
from agent_memory.integrations.tool_specs import BY_NAME
from conftest import Server, free_port
from manifests import memory_manifest

pytestmark = pytest.mark.e2e

AGENT = "teams/mcp/helper"
# The README quick start's manifest.
MANIFEST = memory_manifest()


def _command(server: Server, *extra: str) -> list[str]:
    token = (server.data_dir / "token").read_text().strip()
    return [
        sys.executable,
        "-m",
        "agent_memory.cli",
        "mcp",
        "--agent",
        AGENT,
        "--url",
        server.url,
        "--token",
        token,
        *extra,
    ]


@pytest.fixture
def agent(module_server: Server) -> Server:
    client = module_server.client()
    try:
        client.delete_agent(AGENT)  # and all an earlier test left: sessions, records, files
    except ApiError as exc:
        assert exc.status == 404
    client.put_agent(AGENT, MANIFEST)
    return module_server


@pytest.fixture
def http_mcp(agent: Server, tmp_path) -> Iterator[str]:
    port = free_port()
    log = (tmp_path / "mcp-http.log").open("w")
    process = subprocess.Popen(
        _command(agent, "--transport", "http", "--port", str(port)),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, (tmp_path / "mcp-http.log").read_text()
        try:
            urllib.request.urlopen(url, timeout=1).close()
            break
        except urllib.error.HTTPError:
            break  # it answers (a GET without a session is refused): it is up
        except OSError:
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(timeout=20)
    log.close()


def _stdio(server: Server, *extra: str) -> StdioServerParameters:
    command = _command(server, *extra)
    # The whole environment: the MCP client passes only a few variables by default, and the
    # server must import the code under test (PYTHONPATH), not whatever is installed.
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


async def _lifecycle(target: Any) -> dict[str, Any]:
    """Every tool and resource once, as an MCP host would use them; what each answered."""
    seen: dict[str, Any] = {}
    async with McpClient(target) as mcp:
        tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
        seen["tools"] = tools
        added = await mcp.call_tool(
            "add_memory", {"summary": "The deploy window is Friday", "scope": "agent"}
        )
        seen["added"] = added
        seen["found"] = await mcp.call_tool("search_memory", {"query": "deploy window"})
        record_id = added.structured_content["memories"][0]["id"]
        seen["read"] = await mcp.call_tool("read_memory", {"id": record_id})
        seen["refused"] = await mcp.call_tool("add_memory", {"summary": ""})
        seen["created"] = await mcp.call_tool(
            "memory",
            {"command": "create", "path": "/memories/notes.md", "file_text": "Ship on Friday\n"},
        )
        seen["again"] = await mcp.call_tool(
            "memory",
            {"command": "create", "path": "/memories/notes.md", "file_text": "other\n"},
        )
        seen["viewed"] = await mcp.call_tool(
            "memory", {"command": "view", "path": "/memories/notes.md"}
        )
        seen["history"] = await mcp.call_tool("search_history", {"query": "Friday"})
        seen["deleted"] = await mcp.call_tool("delete_memory", {"id": record_id})
        try:
            seen["unknown"] = await mcp.call_tool("forget_everything", {})
        except MCPError as exc:
            seen["unknown"] = exc
        seen["resources"] = [str(r.uri) for r in (await mcp.list_resources()).resources]
        instructions = await mcp.read_resource("agent-memory://instructions")
        seen["instructions"] = instructions.contents[0].text
        index = await mcp.read_resource("agent-memory://memory-index")
        seen["index"] = index.contents[0].text
    return seen


def _check_lifecycle(server: Server, seen: dict[str, Any]) -> None:
    client = server.client()
    # The tools are the service's, with the schema it validates against.
    assert sorted(seen["tools"]) == sorted(
        ["search_memory", "add_memory", "read_memory", "delete_memory", "search_history", "memory"]
    )
    assert (
        seen["tools"]["add_memory"].input_schema["required"]
        == (AddMemoryIn.model_json_schema()["required"])
    )
    assert seen["tools"]["memory"].input_schema["properties"]["command"]["enum"] == [
        "view",
        "create",
        "str_replace",
        "insert",
        "delete",
        "rename",
    ]
    # A write is committed at once: the next call finds it.
    assert not seen["added"].is_error
    record = seen["added"].structured_content["memories"][0]
    found = seen["found"].structured_content["records"]
    assert [r["id"] for r in found] == [record["id"]]
    assert seen["read"].structured_content["sources"][0]["summary"] == "The deploy window is Friday"
    # Refused: the service's message, as a tool error; nothing written.
    assert seen["refused"].is_error
    assert "summary" in seen["refused"].content[0].text
    # The memory tool answers with the service's texts, word for word.
    assert seen["created"].content[0].text == "File created successfully at: /memories/notes.md"
    assert seen["again"].is_error
    assert seen["again"].content[0].text == "Error: File /memories/notes.md already exists"
    assert "Ship on Friday" in seen["viewed"].content[0].text
    assert not seen["history"].is_error
    assert not seen["deleted"].is_error
    assert client.get_memory(AGENT, "notes.md")["content"] == "Ship on Friday\n"
    assert client.get_record(AGENT, record["id"])["status"] == "DELETED"
    # A tool the service has not: a protocol error that begins no turn.
    assert isinstance(seen["unknown"], MCPError)
    assert "unknown tool: forget_everything" in str(seen["unknown"])
    # Resources: the turn's instructions and the session's memory index.
    assert seen["resources"] == ["agent-memory://instructions", "agent-memory://memory-index"]
    assert seen["instructions"].startswith("Memory rules:")
    assert "/memories/notes.md" in seen["index"]
    # One session; one turn a call: committed, or rolled back when refused.
    sessions = client.list_sessions(AGENT)["sessions"]
    assert len(sessions) == 1
    session = sessions[0]["id"]
    turns = client.list_turns(AGENT, session)["turns"]
    statuses = [t["status"] for t in turns]
    assert statuses == [
        "committed",  # add_memory
        "committed",  # search_memory
        "committed",  # read_memory
        "rolled_back",  # add_memory refused
        "committed",  # memory create
        "rolled_back",  # memory create refused
        "committed",  # memory view
        "committed",  # search_history
        "committed",  # delete_memory
        "rolled_back",  # the instructions resource, read in a turn that leaves nothing
    ]
    # The record's provenance names the session and the turn that wrote it.
    assert record["provenance"]["sessionId"] == session
    assert record["provenance"]["turnId"] == turns[0]["id"]
    assert [r["summary"] for r in client.list_records(AGENT, status="all")["records"]] == [
        "The deploy window is Friday"
    ]


def test_stdio_transport_maps_calls_onto_committed_turns(agent: Server) -> None:
    seen = anyio.run(_lifecycle, _stdio(agent))
    _check_lifecycle(agent, seen)


def test_streamable_http_transport_maps_calls_onto_committed_turns(
    agent: Server, http_mcp: str
) -> None:
    seen = anyio.run(_lifecycle, http_mcp)
    _check_lifecycle(agent, seen)


def test_a_named_session_is_made_then_joined(agent: Server) -> None:
    async def remember(summary: str) -> None:
        async with McpClient(_stdio(agent, "--session", "desk-1")) as mcp:
            answer = await mcp.call_tool("add_memory", {"summary": summary})
            assert not answer.is_error, answer.content

    anyio.run(remember, "first")
    anyio.run(remember, "second")  # a second server joins the session the first made
    client = agent.client()
    assert [s["id"] for s in client.list_sessions(AGENT)["sessions"]] == ["desk-1"]
    assert client.get_session(AGENT, "desk-1")["turns"] == 2


def test_a_tool_the_manifest_does_not_offer_is_unlisted_and_a_tool_error(agent: Server) -> None:
    # Given a read-only agent that lists no record tools
    manifest = {"harness": {"memory": {"enabled": True, "access": "read_only", "tools": []}}}
    agent.client().put_agent(AGENT, manifest)

    async def call() -> tuple[list[str], Any]:
        async with McpClient(_stdio(agent)) as mcp:
            listed = [tool.name for tool in (await mcp.list_tools()).tools]
            return listed, await mcp.call_tool("add_memory", {"summary": "x"})

    # When the host lists the tools and calls one that is not offered
    listed, answer = anyio.run(call)
    # Then only what the manifest offers is listed, and the call is the service's refusal
    assert listed == ["search_memory", "memory"]
    assert answer.is_error
    assert "add_memory is not offered" in answer.content[0].text
    assert agent.client().list_records(AGENT, status="all")["records"] == []


def test_a_fact_added_in_one_conversation_is_found_in_the_next(agent: Server) -> None:
    # Given the README's quick-start manifest (both scopes), and two conversations: two MCP
    # connections, each its own session
    async def first() -> str:
        async with McpClient(_stdio(agent)) as mcp:
            tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
            # add_memory tells the model how a fact reaches later conversations
            description = tools["add_memory"].description
            for lasting in ("The user prefers dark mode", "The user works at Acme"):
                answer = await mcp.call_tool("add_memory", {"summary": lasting, "scope": "agent"})
                assert not answer.is_error, answer.content
            task = {"summary": "The user is drafting the Acme dark mode release notes"}
            assert not (await mcp.call_tool("add_memory", task)).is_error
            return description

    async def second() -> list[str]:
        async with McpClient(_stdio(agent)) as mcp:
            found = await mcp.call_tool("search_memory", {"query": "Acme dark mode user"})
            return [r["summary"] for r in found.structured_content["records"]]

    description = anyio.run(first)
    found = anyio.run(second)
    assert 'scope "agent" for what is true beyond this conversation' in description
    # Then the next conversation finds the agent-scope facts, not the first one's task
    assert sorted(found) == ["The user prefers dark mode", "The user works at Acme"]
    assert len(agent.client().list_sessions(AGENT)["sessions"]) == 2


def _start(server: Server, *extra: str, url: str | None = None) -> subprocess.CompletedProcess:
    command = _command(server, *extra)
    if url is not None:
        command[command.index("--url") + 1] = url
    return subprocess.run(
        command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("manifest", "says"),
    [
        (
            None,
            f"agent-memory: agent '{AGENT}' does not exist at http://127.0.0.1:",
        ),
        (
            {"harness": {"memory": {"enabled": False}}},
            f"agent-memory: the MCP server cannot start: agent '{AGENT}' has record memory off: "
            "set harness.memory.enabled to true in its manifest",
        ),
        (
            {"harness": {"memory": {"enabled": True, "tools": ["read_memory"]}}},
            f"agent-memory: the MCP server cannot start: agent '{AGENT}' does not offer "
            "add_memory (harness.memory.tools lists read_memory): add it to "
            "harness.memory.tools, or set harness.memory.access to read_only for a server that "
            "only searches",
        ),
    ],
)
def test_the_server_stops_at_start_for_an_agent_that_cannot_serve(
    agent: Server, manifest: dict[str, Any] | None, says: str
) -> None:
    # Given an agent that does not exist, or whose manifest lacks what the server serves
    client = agent.client()
    if manifest is None:
        client.delete_agent(AGENT)
    else:
        client.put_agent(AGENT, manifest)
    versions = None if manifest is None else client.get_agent(AGENT)["manifestVersion"]
    # When the server starts
    done = _start(agent)
    # Then it exits at once saying what to do, and changes nothing
    assert done.returncode == 1, done.stderr
    assert says in done.stderr
    assert "Traceback" not in done.stderr
    if manifest is None:
        assert "--create-agent" in done.stderr
        with pytest.raises(ApiError):
            client.get_agent(AGENT)
    else:
        assert client.get_agent(AGENT)["manifestVersion"] == versions


def test_the_server_stops_at_start_when_the_service_does_not_answer(agent: Server) -> None:
    done = _start(agent, url=f"http://127.0.0.1:{free_port()}")
    assert done.returncode == 1
    assert "agent-memory: the memory service did not answer at http://127.0.0.1:" in done.stderr
    assert "pass --url / set AGENT_MEMORY_URL" in done.stderr
    assert "Traceback" not in done.stderr


def test_create_agent_makes_a_missing_agent_that_serves_and_leaves_one_that_exists(
    agent: Server,
) -> None:
    client = agent.client()
    client.delete_agent(AGENT)

    async def remember() -> list[str]:
        async with McpClient(_stdio(agent, "--create-agent")) as mcp:
            listed = [tool.name for tool in (await mcp.list_tools()).tools]
            answer = await mcp.call_tool("add_memory", {"summary": "Ship on Fridays"})
            assert not answer.is_error, answer.content
            return listed

    # A missing agent is made with what the server needs: every tool is offered.
    listed = anyio.run(remember)
    assert sorted(listed) == sorted(tool.name for tool in BY_NAME.values())
    made = client.get_agent(AGENT)
    memory = made["manifest"]["harness"]["memory"]
    assert memory["scope"]["write"] == ["session", "agent"]
    assert made["manifestVersion"] == 1
    # An agent that exists is never changed, even when it cannot serve.
    client.put_agent(AGENT, {"harness": {"memory": {"enabled": False}}})
    done = _start(agent, "--create-agent")
    assert done.returncode == 1 and "has record memory off" in done.stderr
    assert client.get_agent(AGENT)["manifestVersion"] == 2
