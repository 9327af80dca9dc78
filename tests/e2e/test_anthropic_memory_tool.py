"""The Anthropic memory tool backend, driven offline (no API key) against the embedded server:
its command handlers run through the memory tool endpoint of a turn, answer with the service's
texts, and leave versions that name the session and turn."""

from __future__ import annotations

import pytest
from anthropic.lib.tools import ToolError
from anthropic.types.beta import BetaMemoryTool20250818ViewCommand

from agent_memory.client import ApiError, Client
from agent_memory.client.transport import RetryPolicy
from agent_memory.integrations.anthropic_memory import AgentMemoryTool, AgentNotReady
from conftest import Server, free_port

pytestmark = pytest.mark.e2e

AGENT = "claude/desk"
MANIFEST = {"harness": {"memory": {"enabled": True}}}


@pytest.fixture
def tool(server: Server) -> AgentMemoryTool:
    server.client().put_agent(AGENT, MANIFEST)
    return AgentMemoryTool(server.client(), AGENT)


def test_each_command_is_a_committed_turn_with_the_services_texts(
    server: Server, tool: AgentMemoryTool
) -> None:
    client = server.client()
    # As the SDK's tool runner calls it: the raw input of Claude's tool_use block.
    assert (
        tool.call({"command": "create", "path": "/memories/prefs.md", "file_text": "tea\n"})
        == "File created successfully at: /memories/prefs.md"
    )
    assert tool.call(
        {
            "command": "str_replace",
            "path": "/memories/prefs.md",
            "old_str": "tea",
            "new_str": "coffee",
        }
    ).startswith("The memory file has been edited.")
    assert (
        tool.call(
            {
                "command": "insert",
                "path": "/memories/prefs.md",
                "insert_line": 0,
                "insert_text": "# Prefs",
            }
        )
        == "The file /memories/prefs.md has been edited."
    )
    # The typed handlers, as a subclass's caller would use them.
    shown = tool.view(BetaMemoryTool20250818ViewCommand(command="view", path="/memories/prefs.md"))
    assert shown.splitlines()[0] == "Here's the content of /memories/prefs.md with line numbers:"
    assert "# Prefs" in shown and "coffee" in shown
    assert (
        tool.call(
            {"command": "rename", "old_path": "/memories/prefs.md", "new_path": "/memories/me.md"}
        )
        == "Successfully renamed /memories/prefs.md to /memories/me.md"
    )
    assert client.get_memory(AGENT, "me.md")["content"] == "# Prefs\ncoffee\n"
    # Every change is a version naming the agent, the session and the turn that made it.
    session = tool.runner.session_id
    versions = client.memory_versions(AGENT)["versions"]
    assert [v["operation"] for v in versions] == ["rename", "update", "update", "create"]
    assert {v["sessionId"] for v in versions} == {session}
    turns = client.list_turns(AGENT, session)["turns"]
    # Five turns: create, str_replace, insert, view (it wrote nothing), rename.
    assert [v["turnId"] for v in versions] == [turns[i]["id"] for i in (4, 2, 1, 0)]
    assert all(v["actor"].startswith(f"agent:{AGENT}@") for v in versions)
    assert tool.call({"command": "delete", "path": "/memories/me.md"}) == (
        "Successfully deleted /memories/me.md"
    )
    assert client.list_memories(AGENT)["memories"] == []


def test_a_refused_command_is_a_tool_error_with_the_services_text_and_changes_nothing(
    server: Server, tool: AgentMemoryTool
) -> None:
    client = server.client()
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": "one\n"})
    with pytest.raises(ToolError) as refused:
        tool.call({"command": "create", "path": "/memories/a.md", "file_text": "two\n"})
    assert str(refused.value) == "Error: File /memories/a.md already exists"
    with pytest.raises(ToolError) as missing:
        tool.call(
            {"command": "str_replace", "path": "/memories/b.md", "old_str": "x", "new_str": "y"}
        )
    assert str(missing.value) == (
        "Error: The path /memories/b.md does not exist. Please provide a valid path."
    )
    assert client.get_memory(AGENT, "a.md")["content"] == "one\n"
    assert len(client.memory_versions(AGENT)["versions"]) == 1
    statuses = [t["status"] for t in client.list_turns(AGENT, tool.runner.session_id)["turns"]]
    assert statuses == ["committed", "rolled_back", "rolled_back"]


def test_in_a_harness_turn_writes_apply_when_the_harness_commits(server: Server) -> None:
    client = server.client()
    client.put_agent(AGENT, MANIFEST)
    session = client.create_session(AGENT)["id"]
    turn = client.begin_turn(AGENT, session)["id"]
    tool = AgentMemoryTool(client, AGENT, session_id=session, turn_id=turn)
    tool.call({"command": "create", "path": "/memories/plan.md", "file_text": "ship\n"})
    # The turn reads its own write; nothing outside it does until the commit.
    assert "ship" in tool.call({"command": "view", "path": "/memories/plan.md"})
    with pytest.raises(ApiError) as absent:
        client.get_memory(AGENT, "plan.md")
    assert absent.value.status == 404
    client.commit_turn(AGENT, session, turn)
    assert client.get_memory(AGENT, "plan.md")["content"] == "ship\n"
    assert client.memory_versions(AGENT)["versions"][0]["turnId"] == turn


def test_clear_all_memory_deletes_every_memory(server: Server, tool: AgentMemoryTool) -> None:
    for name in ("a", "b", "c"):
        tool.call({"command": "create", "path": f"/memories/x/{name}.md", "file_text": name})
    assert tool.clear_all_memory() == "Deleted 3 memories"
    assert server.client().list_memories(AGENT)["memories"] == []


def test_the_tool_is_offered_to_claude_as_the_memory_tool(
    server: Server, tool: AgentMemoryTool
) -> None:
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory"}
    with pytest.raises(ValueError, match="session_id"):
        AgentMemoryTool(server.client(), AGENT, turn_id="trn_1")


def test_what_claude_notes_in_one_conversation_is_there_in_the_next(
    server: Server, tool: AgentMemoryTool
) -> None:
    # Given a conversation that notes a preference (its own tool, its own session)
    tool.call({"command": "create", "path": "/memories/prefs.md", "file_text": "dark mode\n"})
    # When the next conversation opens with a tool of its own on the same agent
    later = AgentMemoryTool(server.client(), AGENT)
    # Then it finds the note: /memories files belong to the agent, not to a session
    assert "dark mode" in later.call({"command": "view", "path": "/memories/prefs.md"})
    assert later.runner.session_id != tool.runner.session_id


def test_a_missing_agent_stops_the_tool_at_start_unless_it_may_create_it(server: Server) -> None:
    client = server.client()
    # Given no agent: the tool refuses to start, saying what to do, and makes nothing
    with pytest.raises(AgentNotReady) as refused:
        AgentMemoryTool(client, AGENT)
    assert refused.value.code == "agent_not_found"
    assert refused.value.message == (
        f"agent '{AGENT}' does not exist at {server.url}: create it (agent-memory agents put "
        f"{AGENT} manifest.json), or start the memory tool with create_agent=True to make it "
        "with a manifest that offers what it needs"
    )
    assert client.list_agents()["agents"] == []
    # When it may create it, the agent is made with memory on and the tool works at once
    tool = AgentMemoryTool(client, AGENT, create_agent=True)
    assert client.get_agent(AGENT)["manifest"]["harness"]["memory"]["enabled"] is True
    assert tool.call({"command": "create", "path": "/memories/a.md", "file_text": "a"}) == (
        "File created successfully at: /memories/a.md"
    )


def test_an_agent_without_memory_stops_the_tool_at_start_and_is_not_changed(
    server: Server,
) -> None:
    client = server.client()
    client.put_agent(AGENT, {"harness": {"history": {"index": "messages"}}})
    with pytest.raises(AgentNotReady) as refused:
        AgentMemoryTool(client, AGENT, create_agent=True)
    assert refused.value.code == "agent_not_ready"
    assert refused.value.message == (
        f"the memory tool cannot start: agent '{AGENT}' declares no harness.memory, so it "
        'offers no memory tool: add a "memory" section to its manifest\'s harness, such as '
        '{"enabled": true}'
    )
    assert client.get_agent(AGENT)["manifestVersion"] == 1


def test_a_service_that_does_not_answer_stops_the_tool_at_start(server: Server) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(AgentNotReady) as refused:
        AgentMemoryTool(Client(url, "token", retry=RetryPolicy(attempts=1)), AGENT)
    assert refused.value.code == "connection_failed"
    assert refused.value.message.startswith(f"the memory service did not answer at {url} (")
    assert refused.value.message.endswith(
        "start it (agent-memory serve) or pass --url / set AGENT_MEMORY_URL"
    )
