"""Audit: the trail of who changed what, its port and the service that keeps and lists it."""
