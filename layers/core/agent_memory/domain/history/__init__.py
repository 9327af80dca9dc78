"""History: each session's events (messages, tool calls) and their fact keys, the port that
keeps them, and the services that append, page and search them."""

# What other capabilities use: they import these names from the package, never its modules.
from .answers import HistoryHit
from .io import SearchHistoryIn
from .keys import EventKeys, key_doc, message_id, proposed_keys
from .models import EventIn, HistoryEvent, event_of, index_id, part_id
from .search import HistorySearch
from .service import AppendIn, HistoryService

__all__ = [
    "AppendIn",
    "EventIn",
    "EventKeys",
    "HistoryEvent",
    "HistoryHit",
    "HistorySearch",
    "HistoryService",
    "SearchHistoryIn",
    "event_of",
    "index_id",
    "key_doc",
    "message_id",
    "part_id",
    "proposed_keys",
]
