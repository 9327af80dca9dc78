"""Audit: the trail of who changed what, its port and the service that keeps and lists it."""

# What other capabilities use: they import these names from the package, never its modules.
from .models import AuditEntry
from .service import AuditService

__all__ = [
    "AuditEntry",
    "AuditService",
]
