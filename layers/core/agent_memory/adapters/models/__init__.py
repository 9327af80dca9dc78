"""Adapters of the extraction Model port (agent_memory.domain.extraction.model.MemoryModel)."""
