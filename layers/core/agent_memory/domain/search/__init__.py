"""Ranking shared by every search adapter."""
