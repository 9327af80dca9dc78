"""Sessions: sessions and their turns, the effects a turn stages and the plan that commits
them, a turn's context and budget, ingest, and the service that opens and ends turns."""

# What other capabilities use: they import these names from the package, never its modules.
from .answers import TurnWithWrites
from .ports import TurnWrites
from .service import SessionService
from .turn_reads import TurnAccess, TurnReads, record_usage

__all__ = [
    "SessionService",
    "TurnAccess",
    "TurnReads",
    "TurnWithWrites",
    "TurnWrites",
    "record_usage",
]
