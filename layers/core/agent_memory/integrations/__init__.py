"""Adapters for the frameworks agents live in: an MCP server, a backend for Anthropic's memory
tool, and a LangGraph store. Each builds on `agent_memory.client.Client` and imports its
framework only when used (`pip install 'agent-memory[mcp]'`, `[anthropic]`, `[langgraph]`)."""
