"""Post-turn extraction: the Model port and the plain steps of the review pipeline."""

# What other capabilities use: they import these names from the package, never its modules.
from .approval import ProposalReview
from .job import ExtractionJob
from .ports import ExtractionStarter
from .service import ExtractionService

__all__ = [
    "ExtractionJob",
    "ExtractionService",
    "ExtractionStarter",
    "ProposalReview",
]
