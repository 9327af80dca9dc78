"""Tools: what an agent is offered in a turn, each tool's typed input and output, and the
service that dispatches a call (instructions, recall, memories, files, history)."""
