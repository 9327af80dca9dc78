"""agent-memory: memory and history for AI agents, embedded or serverless on AWS."""

__version__ = "0.1.0"
