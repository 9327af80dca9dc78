"""An agent's entities: the names its records, file memories and history events mention, each
with how many mention it and the newest of them (GET /v1/agents/{id}/-/entities).

Read from the entity links kept beside the search index (domain/search/links.py), which hold
only what a search may return: active live records, existing memories, events of committed live
turns. Listed in key order, a page at a time, optionally only the keys starting with `query`
(read as an entity key: `Caroline's` finds caroline).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from ..history import event_of
from ..kernel.answers import Answer
from ..kernel.errors import InvalidRequest, NotFound
from ..kernel.paging import decode_cursor, encode_cursor, str_field
from ..search import (
    MAX_ENTITY_MENTIONS,
    MAX_ENTITY_PAGE,
    MAX_KEY_CHARS,
    SearchService,
    entity_key,
)

if TYPE_CHECKING:
    from ..search import Mention
    from ..store import Store

DEFAULT_PAGE = 20
DEFAULT_MENTIONS = 5


class RecordMention(Answer):
    type: Literal["record"]
    id: str
    session_id: str | None = Field(alias="sessionId")
    created_at: str = Field(alias="createdAt")


class MemoryMention(Answer):
    type: Literal["memory"]
    path: str
    updated_at: str = Field(alias="updatedAt")


class EventMention(Answer):
    type: Literal["history"]
    session_id: str = Field(alias="sessionId")
    event_id: str = Field(alias="eventId")
    part: int
    time: str


MentionItem = Annotated[RecordMention | MemoryMention | EventMention, Field(discriminator="type")]


class EntityOut(Answer):
    key: str
    count: int  # documents mentioning it (a long event: each of its parts that does)
    items: list[MentionItem]


class EntityPage(Answer):
    entities: list[EntityOut]
    next: str | None


class AgentEntities:
    """Lists an agent's entities from the entity links of `search`."""

    def __init__(self, store: Store, search: SearchService) -> None:
        self._store = store
        self._search = search

    def list(
        self,
        tenant: str,
        agent_id: str,
        query: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        mentions: int | None = None,
    ) -> EntityPage:
        """A page of the agent's entities whose key starts with `query`'s key, in key order."""
        size = DEFAULT_PAGE if limit is None else limit
        if not 1 <= size <= MAX_ENTITY_PAGE:
            raise InvalidRequest(
                f"limit must be between 1 and {MAX_ENTITY_PAGE}", code="invalid_limit"
            )
        shown = DEFAULT_MENTIONS if mentions is None else mentions
        if not 0 <= shown <= MAX_ENTITY_MENTIONS:
            raise InvalidRequest(
                f"items must be between 0 and {MAX_ENTITY_MENTIONS}", code="invalid_items"
            )
        prefix = entity_key(query or "")
        if len(prefix) > MAX_KEY_CHARS or "#" in prefix:
            raise InvalidRequest(
                f"query is the start of an entity's name: at most {MAX_KEY_CHARS} characters,"
                " no '#'",
                code="invalid_query",
            )
        position = decode_cursor(cursor)
        after = str_field(position, "after")
        if self._store.get_agent(tenant, agent_id) is None:
            raise NotFound(f"agent {agent_id!r} does not exist", code="agent_not_found")
        links = self._search.links
        if links is None:
            return EntityPage(entities=[], next=None)  # nothing indexed, nothing linked
        # One more than the page tells whether another follows.
        found = links.entities(tenant, agent_id, prefix, size + 1, after, shown)
        more = len(found) > size
        found = found[:size]
        return EntityPage(
            entities=[
                EntityOut(key=e.key, count=e.count, items=[_item(m) for m in e.mentions])
                for e in found
            ],
            next=encode_cursor({"after": found[-1].key}) if more else None,
        )


def _item(mention: Mention) -> RecordMention | MemoryMention | EventMention:
    at = mention.created_at.isoformat()
    if mention.kind == "record":
        return RecordMention(
            type="record", id=mention.id, session_id=mention.session_id, created_at=at
        )
    if mention.kind == "file":
        return MemoryMention(type="memory", path=mention.id, updated_at=at)
    part = mention.id.rpartition(".")[2]
    return EventMention(
        type="history",
        session_id=mention.session_id or "",
        event_id=event_of(mention.id),
        part=int(part) if part.isdigit() else 1,
        time=at,
    )
