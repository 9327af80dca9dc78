"""Ranking records for a query: the search index proposes, the store decides. Used by
search_memory and recall within a turn, and by the management API's `query=` listing; without
an index, BM25 over the records the store finds."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..manifests import Manifest, RerankConfig
from ..search import IndexFilter, SearchService, bm25
from ..turns import TurnContext
from ..usage import UsageEntry, usage_rows
from .models import Record, RecordQuery
from .view import CANDIDATES, RecordView

if TYPE_CHECKING:
    from ..store import Store


class RecordRanking:
    """Best matches first, each re-read from the store and re-checked against the query."""

    def __init__(self, store: Store, search: SearchService, view: RecordView) -> None:
        self._store = store
        self._search = search
        self._view = view

    def ranked(self, ctx: TurnContext, text: str, query: RecordQuery, limit: int) -> list[Record]:
        """Records the turn sees, best match for `text` first: words, meaning and recency.

        The index proposes; the store decides. Each candidate is re-read and checked (status,
        version, preview, scope, filters) so a stale index never leaks a record.
        """
        rerank = ctx.memory.search.rerank
        depth = reranked_depth(limit, rerank)
        if self._search.index is None:
            found = rank_lexical(text, self._view.find(ctx, query))[:depth]
            return self._reranked(text, found, limit, rerank, ctx.usage)
        staged = [r for r in self._staged_records(ctx) if query.matches(r)]
        ranked, usage = self._search.rank(
            ctx.tenant,
            ctx.agent_id,
            text,
            index_filter(query),
            ctx.memory.search.mode,
            ctx.memory.search.min_score,
            extra=staged,
        )
        ctx.usage.extend(usage)
        hidden = self._view.hidden_by_preview(ctx) if ctx.preview else set()

        def with_turns_writes(records: dict[str, Record], chunk: list[str]) -> None:
            records.update({r.id: r for r in staged if r.id in chunk})
            self._view.overlay(ctx, records)

        wanted = [r.id for r in ranked if r.id not in hidden]
        found = self.rechecked(ctx.tenant, ctx.agent_id, wanted, query, depth, with_turns_writes)
        return self._reranked(text, found, limit, rerank, ctx.usage)

    def _reranked(
        self,
        text: str,
        found: list[Record],
        limit: int,
        rerank: RerankConfig | None,
        usage: list[UsageEntry],
    ) -> list[Record]:
        """The best `limit` of `found` after the agent's rerank (none: as found)."""
        ordered, spent = self._search.rerank.apply(text, found, rerank_text, rerank)
        usage.extend(spent)
        return ordered[:limit]

    def rechecked(
        self,
        tenant: str,
        agent_id: str,
        wanted: list[str],
        query: RecordQuery,
        limit: int,
        adjust: Callable[[dict[str, Record], list[str]], None] | None = None,
    ) -> list[Record]:
        """The index's candidates, in its order, as the store has them now and matching
        `query` (`adjust` lays a turn's own writes over them)."""
        found: list[Record] = []
        # Most candidates pass the re-check: read a few more than needed, not the whole list.
        step = limit + 5
        for start in range(0, len(wanted), step):
            chunk = wanted[start : start + step]
            records = {r.id: r for r in self._store.get_records(tenant, agent_id, chunk)}
            if adjust is not None:
                adjust(records, chunk)
            found += [records[i] for i in chunk if i in records and query.matches(records[i])]
            if len(found) >= limit:
                break
        return found[:limit]

    def ranked_for_app(
        self, tenant: str, agent_id: str, text: str, query: RecordQuery, limit: int
    ) -> list[Record]:
        """The listing's `query=`: words, meaning and recency as search_memory ranks them,
        with the agent's current harness.memory.search; its embedding is usage on the agent."""
        agent = self._store.get_agent(tenant, agent_id)
        search = Manifest.model_validate(agent.manifest if agent else {}).harness.memory.search
        depth = reranked_depth(limit, search.rerank)
        usage: list[UsageEntry] = []
        if self._search.index is None:
            candidates = self._store.find_records(tenant, agent_id, query, CANDIDATES, None)
            found = rank_lexical(text, candidates)[:depth]
        else:
            ranked, usage = self._search.rank(
                tenant, agent_id, text, index_filter(query), search.mode, search.min_score
            )
            found = self.rechecked(tenant, agent_id, [r.id for r in ranked], query, depth)
        found = self._reranked(text, found, limit, search.rerank, usage)
        if usage:
            self._store.add_usage(tenant, agent_id, usage_rows(agent_id, None, usage))
        return found

    def _staged_records(self, ctx: TurnContext) -> list[Record]:
        records: dict[str, Record] = {}
        self._view.overlay(ctx, records)
        return list(records.values())


def reranked_depth(limit: int, rerank: RerankConfig | None) -> int:
    """How many first-stage records a search reads: its page, or the rerank's `top` if more."""
    return limit if rerank is None else max(limit, rerank.top)


def rerank_text(record: Record) -> str:
    """What a reranker reads of a record: its summary and content, as meaning finds it."""
    return f"{record.summary}\n{record.content}" if record.content else record.summary


def index_filter(query: RecordQuery) -> IndexFilter:
    return IndexFilter(
        kind="record",
        statuses=frozenset(s.value for s in query.statuses),
        record_kinds=query.kinds,
        labels=dict(query.labels),
        ids=query.ids,
        include_agent=query.include_agent,
        session_id=query.session_id,
        include_all_sessions=query.include_all_sessions,
        preview=query.preview,
    )


def rank_lexical(text: str, records: list[Record]) -> list[Record]:
    """BM25 over summary, content, kind and label values; newer records win ties."""
    ordered = sorted(records, key=lambda r: r.id)  # oldest first: bm25 breaks ties to later ones
    documents = [
        " ".join([r.summary, r.content or "", r.kind, *r.labels.values()]) for r in ordered
    ]
    return [ordered[s.index] for s in bm25(text, documents)]
