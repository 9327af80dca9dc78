"""Usage: each turn's model calls and searches, and the port that keeps them."""

# What other capabilities use: they import these names from the package, never its modules.
from .models import ModelCall, Usage, UsageEntry, UsagePage, usage_rows

__all__ = [
    "ModelCall",
    "Usage",
    "UsageEntry",
    "UsagePage",
    "usage_rows",
]
