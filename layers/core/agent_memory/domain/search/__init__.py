"""Ranking shared by every search adapter."""

# What other capabilities use: they import these names from the package, never its modules.
from .index import EmbedRequest, IndexDoc, IndexFilter
from .lexical import bm25, tokenize
from .ranking import Ranked, credit_answered, favour_windows, weigh_replies
from .rerank import NO_RERANK, Reranker, RerankFailed, RerankStage, Scores
from .service import CANDIDATES, SearchService, file_text
from .speaker import asks_for_replies
from .when import Window, windows

__all__ = [
    "CANDIDATES",
    "EmbedRequest",
    "IndexDoc",
    "IndexFilter",
    "NO_RERANK",
    "Ranked",
    "RerankFailed",
    "RerankStage",
    "Reranker",
    "Scores",
    "SearchService",
    "Window",
    "asks_for_replies",
    "bm25",
    "credit_answered",
    "favour_windows",
    "file_text",
    "tokenize",
    "weigh_replies",
    "windows",
]
