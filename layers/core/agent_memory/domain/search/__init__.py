"""Ranking shared by every search adapter.

The learned fusion (fusion.py) and the entity hops (hops.py) load on first use: both are off by
default, and their import is a cold start's cost (benchmarks/RESULTS.md "Cold start")."""

from __future__ import annotations

from typing import TYPE_CHECKING

# What other capabilities use: they import these names from the package, never its modules.
from ..kernel.lazy import lazy_names
from .entities import MAX_KEY_CHARS, entities, entity_key
from .index import EmbedRequest, IndexDoc, IndexFilter
from .lexical import bm25, tokenize
from .links import MAX_ENTITY_MENTIONS, MAX_ENTITY_PAGE, Mention
from .ranking import Ranked, credit_answered, favour_windows, weigh_replies
from .rerank import NO_RERANK, Reranker, RerankFailed, RerankStage, Scores
from .service import CANDIDATES, SearchService, file_text
from .speaker import asks_for_replies
from .when import Window, windows

if TYPE_CHECKING:
    from .fusion import FEATURES, LearnedFusion, Signals, features, learned
    from .hops import Reach, entity_hops, entity_reach, hopped

# Module of each name loaded on first use.
_LAZY = {
    **dict.fromkeys(("FEATURES", "LearnedFusion", "Signals", "features", "learned"), ".fusion"),
    **dict.fromkeys(("Reach", "entity_hops", "entity_reach", "hopped"), ".hops"),
}

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


__getattr__ = lazy_names(__name__, _LAZY)
