"""Ranking shared by every search adapter."""

# What other capabilities use: they import these names from the package, never its modules.
from .entities import MAX_KEY_CHARS, entities, entity_key
from .fusion import FEATURES, LearnedFusion, Signals, features, learned
from .hops import Reach, entity_hops, entity_reach, hopped
from .index import EmbedRequest, IndexDoc, IndexFilter
from .lexical import bm25, tokenize
from .links import MAX_ENTITY_MENTIONS, MAX_ENTITY_PAGE, Mention
from .ranking import Ranked, credit_answered, favour_windows, weigh_replies
from .rerank import NO_RERANK, Reranker, RerankFailed, RerankStage, Scores
from .service import CANDIDATES, SearchService, file_text
from .speaker import asks_for_replies
from .when import Window, windows

__all__ = [
    "CANDIDATES",
    "FEATURES",
    "LearnedFusion",
    "Reach",
    "Signals",
    "MAX_ENTITY_MENTIONS",
    "MAX_ENTITY_PAGE",
    "MAX_KEY_CHARS",
    "Mention",
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
    "entities",
    "entity_hops",
    "entity_reach",
    "features",
    "hopped",
    "learned",
    "entity_key",
    "favour_windows",
    "file_text",
    "tokenize",
    "weigh_replies",
    "windows",
]
