"""Adapters: the technologies behind the domain's ports."""
