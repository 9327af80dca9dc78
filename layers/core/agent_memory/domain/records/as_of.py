"""As-of reads of record memory: what the agent knew at a past instant, answered from the
versions kept. A record superseded, deleted or expired after the instant shows as it stood
then; one whose first version came after it does not exist; expiry is judged at the instant.

A record's text, kind, labels, scope and preview flag never change across its versions (a
correction is a new record), so the store filters on those as usual and only status, pins and
expiry are judged from the version current at the instant."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..kernel.ids import id_floor
from ..manifests import Manifest
from ..search import SearchService
from ..usage import UsageEntry, usage_rows
from .models import Record, RecordQuery
from .ranking import index_filter, rank_lexical, rerank_text, reranked_depth
from .view import CANDIDATES

if TYPE_CHECKING:
    from ..store import Store

RECORD_PREFIX = "rec"


class RecordsAsOf:
    """Listings and ranked listings of an agent's records as they stood at an instant."""

    def __init__(self, store: Store, search: SearchService) -> None:
        self._store = store
        self._search = search

    def find(
        self,
        tenant: str,
        agent_id: str,
        query: RecordQuery,
        at: datetime,
        limit: int,
        before: str | None,
    ) -> list[Record]:
        """Up to `limit` records matching `query` as they stood at `at`, newest first, ids
        below `before`."""
        judged = query.model_copy(update={"at": at})
        # Record ids are minted in time order (kernel.ids.new_id) before their first version is
        # written: none minted after `at` can have existed then, so the walk starts below them.
        bound = id_floor(RECORD_PREFIX, at + timedelta(milliseconds=2))
        cursor = bound if before is None else min(before, bound)
        found: list[Record] = []
        while len(found) < limit:
            batch = self._store.find_records_at(tenant, agent_id, query, at, limit, cursor)
            found += [r for r in batch if judged.matches(r)]
            if len(batch) < limit:
                break
            cursor = batch[-1].id
        return [record.seen_at(at) for record in found[:limit]]

    def ranked(
        self,
        tenant: str,
        agent_id: str,
        text: str,
        query: RecordQuery,
        at: datetime,
        limit: int,
    ) -> list[Record]:
        """The listing's `query=` as of `at`: ranked as today, with the agent's current search
        settings (a record's text is the same in every version), each candidate judged as it
        stood at `at`; the query's embedding is usage on the agent."""
        wide, judged = _split(query, at)
        agent = self._store.get_agent(tenant, agent_id)
        search = Manifest.model_validate(agent.manifest if agent else {}).harness.memory.search
        depth = reranked_depth(limit, search.rerank)
        usage: list[UsageEntry] = []
        if self._search.index is None:
            candidates = self.find(tenant, agent_id, query, at, CANDIDATES, None)
            found = rank_lexical(text, candidates)[:depth]
        else:
            ranked, usage = self._search.rank(
                tenant, agent_id, text, index_filter(wide), search.mode, search.min_score
            )
            found = self.rechecked(tenant, agent_id, [hit.id for hit in ranked], judged, at, depth)
        found, spent = self._search.rerank.apply(text, found, rerank_text, search.rerank)
        usage += spent
        if usage:
            self._store.add_usage(tenant, agent_id, usage_rows(agent_id, None, usage))
        return found[:limit]

    def rechecked(
        self,
        tenant: str,
        agent_id: str,
        wanted: list[str],
        query: RecordQuery,
        at: datetime,
        limit: int,
    ) -> list[Record]:
        """An index's candidates, in its order, as they stood at `at` and matching `query`
        then (the index holds today's documents: a record's text is the same in every
        version, its status then is read from its versions)."""
        judged = query.model_copy(update={"at": at})
        found: list[Record] = []
        step = limit + 5
        for start in range(0, len(wanted), step):
            chunk = wanted[start : start + step]
            heads = {r.id: r for r in self._store.get_records(tenant, agent_id, chunk)}
            then = self.states_at(tenant, agent_id, [heads[i] for i in chunk if i in heads], at)
            states = {r.id: r for r in then}
            found += [states[i] for i in chunk if i in states and judged.matches(states[i])]
            if len(found) >= limit:
                break
        return [record.seen_at(at) for record in found[:limit]]

    def states_at(
        self, tenant: str, agent_id: str, heads: Sequence[Record], at: datetime
    ) -> list[Record]:
        """Each head as it stood at `at`, in the heads' order; those made after it left out. A
        head unchanged since `at` is its own answer; only the others read their versions."""
        older = {h.id for h in heads if h.updated_at > at and h.created_at <= at}
        then = {r.id: r for r in self._store.records_at(tenant, agent_id, older, at)}
        states: list[Record] = []
        for head in heads:
            if head.updated_at <= at:
                states.append(head)
            elif head.id in then:
                states.append(then[head.id])
        return states


def _split(query: RecordQuery, at: datetime) -> tuple[RecordQuery, RecordQuery]:
    """What the store filters (the fields no version changes) and what each record's state at
    `at` is judged by (the whole query, expiry at `at`)."""
    wide = query.model_copy(update={"statuses": frozenset(), "pinned": None, "at": at})
    return wide, query.model_copy(update={"at": at})
