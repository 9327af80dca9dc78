"""Keeping the search index in step with the store (cloud: the table's stream)."""
