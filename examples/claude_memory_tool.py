"""Claude with its memory tool kept in agent-memory (needs ANTHROPIC_API_KEY; not run in tests:
the backend's handlers are, offline, in tests/e2e/test_anthropic_memory_tool.py).

    pip install 'agent-memory[anthropic]'
    agent-memory serve &                       # or AGENT_MEMORY_URL / AGENT_MEMORY_TOKEN
    export AGENT_MEMORY_TOKEN=$(cat data/token) ANTHROPIC_API_KEY=...
    python examples/claude_memory_tool.py "I take my coffee black; remember that."
    python examples/claude_memory_tool.py "How do I take my coffee?"

Each run is one conversation: one session of the agent. Every memory command Claude sends runs
in a turn of that session committed at once, so the second run reads what the first wrote, and
`agent-memory memories versions examples/claude` shows who changed what, in which session.
"""

from __future__ import annotations

import sys

import anthropic

from agent_memory.client import ApiError, Client
from agent_memory.integrations.anthropic_memory import AgentMemoryTool

AGENT = "examples/claude"
MODEL = "claude-sonnet-5-5"


def main(question: str) -> None:
    memory = Client()  # AGENT_MEMORY_URL and AGENT_MEMORY_TOKEN, as the CLI reads them
    # Declaring harness.memory offers the memory tool; a saved manifest is kept as it is.
    try:
        memory.get_agent(AGENT)
    except ApiError as exc:
        if exc.status != 404:
            raise
        memory.put_agent(AGENT, {"harness": {"memory": {"enabled": True}}})
    tool = AgentMemoryTool(memory, AGENT)
    runner = anthropic.Anthropic().beta.messages.tool_runner(
        model=MODEL,
        max_tokens=2048,
        betas=["context-management-2025-06-27"],
        tools=[tool],
        messages=[{"role": "user", "content": question}],
    )
    reply = runner.until_done()
    print("".join(block.text for block in reply.content if block.type == "text"))
    print(f"(memories of {AGENT}, session {tool.runner.session_id}:)", file=sys.stderr)
    for item in memory.list_memories(AGENT)["memories"]:
        print(f"  {item['path']} v{item['version']}", file=sys.stderr)


if __name__ == "__main__":
    main(" ".join(sys.argv[1:]) or "What do you remember about me?")
