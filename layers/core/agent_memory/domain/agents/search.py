"""One search over everything an agent knows: its records, its file memories and its history,
in one ranked list (the management API's GET /v1/agents/{id}/-/search).

The three kinds are ranked together (SearchService.rank_kinds: one embedding of the query,
words weighed against the best match of any kind), then each candidate is re-read from the
store as every search re-reads: an active live record, a memory that still exists, an event of
a committed live turn. Each hit is typed and carries what reading it needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from ..files import memories_at
from ..history import HistoryHit, HistorySearch
from ..kernel.errors import InvalidRequest, NotFound
from ..kernel.models import AGENT_SESSION, utcnow
from ..manifests import Manifest
from ..records import RecordQuery, RecordService, RecordStatus, rerank_text
from ..search import CANDIDATES, IndexFilter, Ranked, SearchService, file_text
from ..usage import usage_rows
from .answers import EventHit, Hit, MemoryHit, RecordHit, SearchHits
from .entities import AgentEntities

if TYPE_CHECKING:
    from ..store import Store

TYPES = ("records", "memories", "history")
MAX_LIMIT = 50


def parse_types(raw: str | None) -> list[str]:
    """`records,memories,history` (any of them, default all) as a list."""
    if raw is None:
        return list(TYPES)
    types = [t.strip() for t in raw.split(",") if t.strip()]
    unknown = sorted(set(types) - set(TYPES))
    if not types or unknown:
        raise InvalidRequest(
            f"types is a comma-separated list of {', '.join(TYPES)}"
            + (f" (not {', '.join(unknown)})" if unknown else ""),
            code="invalid_types",
        )
    return list(dict.fromkeys(types))


class AgentSearch:
    def __init__(
        self,
        store: Store,
        search: SearchService,
        records: RecordService,
        history: HistorySearch,
    ) -> None:
        self._store = store
        self._search = search
        self._records_service = records
        self._history = history
        # The entities its records, memories and events mention (GET .../-/entities).
        self.entities = AgentEntities(store, search)

    def search(
        self,
        tenant: str,
        agent_id: str,
        query: str,
        types: list[str],
        limit: int,
        every_session: bool = True,
        as_of: datetime | None = None,
    ) -> SearchHits:
        """`every_session` False keeps to what is agent-wide: agent-scope records and file
        memories (a caller that reaches only the sessions it started). `as_of`: what the agent
        knew at that instant (a later one reads as now): records and memories as they stood
        then, events of turns committed by then."""
        at = None if as_of is None else min(as_of, utcnow())
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidRequest(f"limit must be between 1 and {MAX_LIMIT}", code="invalid_limit")
        if not query.strip():
            raise InvalidRequest("query is empty", code="invalid_query")
        agent = self._store.get_agent(tenant, agent_id)
        if agent is None:
            raise NotFound(f"agent {agent_id!r} does not exist", code="agent_not_found")
        if self._search.index is None:
            return SearchHits(hits=[])  # as search_history finds nothing where nothing is indexed
        search = Manifest.model_validate(agent.manifest).harness.memory.search
        wheres = [_where(t, every_session, at is not None) for t in types]
        ranked, usage = self._search.rank_kinds(
            tenant, agent_id, query, wheres, search.mode, search.min_score, depth=CANDIDATES
        )
        if usage:
            self._store.add_usage(tenant, agent_id, usage_rows(agent_id, None, usage))
        by_kind: dict[str, list[Ranked]] = {}
        for kind, candidate in ranked:
            by_kind.setdefault(kind, []).append(candidate)
        # With a rerank, each kind gives as many as it reorders; the page is cut after it.
        depth = limit if search.rerank is None else max(limit, search.rerank.top)
        hits: list[tuple[Hit, str]] = [
            *self._records(tenant, agent_id, by_kind.get("record", []), depth, every_session, at),
            *self._memories(tenant, agent_id, by_kind.get("file", []), depth, at),
        ]
        if "event" in by_kind:
            # Scaled by the best words score of all kinds, as they were fused.
            best_words = max((r.lexical or 0.0 for _, r in ranked), default=0.0)
            found = self._history.app_hits(
                tenant, agent_id, query, by_kind["event"], depth, search.mode, best_words
            )
            hits += [
                (_event_hit(candidate, event), event.text)
                for candidate, event in found
                if at is None or self._committed_by(tenant, agent_id, event, at)
            ]
        hits.sort(key=lambda h: h[0].score, reverse=True)
        ordered, spent = self._search.rerank.apply(query, hits, _text, search.rerank)
        if spent:
            self._store.add_usage(tenant, agent_id, usage_rows(agent_id, None, spent))
        return SearchHits(hits=[hit for hit, _ in ordered[:limit]])

    def _committed_by(self, tenant: str, agent_id: str, event: HistoryHit, at: datetime) -> bool:
        """Whether the event's turn had committed by `at` (searches see committed turns)."""
        turn = self._store.get_turn(tenant, agent_id, event.session or AGENT_SESSION, event.turn_id)
        return turn is not None and turn.ended_at is not None and turn.ended_at <= at

    def _records(
        self,
        tenant: str,
        agent_id: str,
        ranked: list[Ranked],
        limit: int,
        every_session: bool,
        at: datetime | None,
    ) -> Iterable[tuple[RecordHit, str]]:
        # Active live records, re-read as every record search re-reads them; session-scope ones
        # only for a caller that reads every session.
        live = RecordQuery(
            statuses=frozenset({RecordStatus.ACTIVE}), include_all_sessions=every_session
        )
        scores = {r.id: r.score for r in ranked}
        wanted = [r.id for r in ranked]
        found = (
            self._records_service.rechecked(tenant, agent_id, wanted, live, limit)
            if at is None
            else self._records_service.rechecked_as_of(tenant, agent_id, wanted, live, at, limit)
        )
        for record in found:
            hit = RecordHit(
                type="record",
                score=scores[record.id],
                id=record.id,
                version=record.version,
                kind=record.kind,
                scope=record.scope,
                session_id=record.session_id,
                summary=record.summary,
                labels=record.labels,
            )
            yield hit, rerank_text(record)

    def _memories(
        self, tenant: str, agent_id: str, ranked: list[Ranked], limit: int, at: datetime | None
    ) -> Iterable[tuple[MemoryHit, str]]:
        found = 0
        then = memories_at(self._store, tenant, agent_id, at) if at is not None and ranked else {}
        for candidate in ranked:
            memory = (
                self._store.get_file(tenant, agent_id, candidate.id)
                if at is None
                else then.get(candidate.id)
            )
            if memory is None:  # deleted since it was indexed
                continue
            hit = MemoryHit(
                type="memory",
                score=candidate.score,
                path=memory.path,
                version=memory.version,
                content_sha256=memory.content_sha256,
                description=memory.description,
                updated_at=memory.updated_at.isoformat(),
            )
            yield hit, file_text(memory)
            found += 1
            if found >= limit:
                return


def _text(hit: tuple[Hit, str]) -> str:
    return hit[1]


def _event_hit(candidate: Ranked, event: HistoryHit) -> EventHit:
    return EventHit(
        type="history",
        score=candidate.score,
        session_id=event.session,
        turn=event.turn,
        turn_id=event.turn_id,
        event_id=event.id,
        sequence=event.sequence,
        part=event.part,
        parts=event.parts,
        role=event.role,
        time=event.time,
        text=event.text,
    )


def _where(kind: str, every_session: bool, past: bool) -> IndexFilter:
    if kind == "records":
        # For a past instant every status is a candidate: what is superseded now was not then.
        statuses = frozenset() if past else frozenset({RecordStatus.ACTIVE.value})
        return IndexFilter(
            kind="record",
            include_agent=True,
            include_all_sessions=every_session,
            statuses=statuses,
        )
    if kind == "memories":
        return IndexFilter(kind="file")
    return IndexFilter(kind="event", include_agent=False, include_all_sessions=True)
