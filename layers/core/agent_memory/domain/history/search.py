"""Searching history: the search_history tool (within the asking turn's session, or across the
agent's sessions when harness.history.search is `agent`) and the management API's search over
an agent's history.

Every hit is an event part found in the index; it is re-read from the store and returned only
when it is visible to the asker (kept as searchable by a committed turn; a preview turn's events
only to preview turns; the asking session's turns only before the asking turn, so a replay sees
what its original saw). Parts of one event come back as one result: its best part, with `part`
and `parts` telling which.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..kernel.errors import DomainError, InvalidRequest, NotFound
from ..kernel.models import utcnow
from ..manifests import Manifest, RerankConfig
from ..search import (
    CANDIDATES,
    IndexFilter,
    Ranked,
    SearchService,
    Window,
    asks_for_replies,
    credit_answered,
    favour_windows,
    tokenize,
    weigh_replies,
    windows,
)
from ..turns import ManifestCache, ToolRefused, TurnContext
from ..usage import UsageEntry, usage_rows
from .answers import HistoryHit, HistorySearchPage
from .hits import (
    MAX_DEPTH,
    READ_AHEAD,
    CandidateEvents,
    Position,
    TurnCache,
    Visible,
    answered,
    found_part,
    replies_among,
    visible_to_apps,
    whole_event,
)
from .io import HISTORY_MAX_LIMIT, HistoryOut, SearchHistoryIn
from .keys import KEY_PART
from .models import HistoryEvent

if TYPE_CHECKING:
    from ..search import Signals
    from ..store import Store

MAX_LIMIT = HISTORY_MAX_LIMIT


def history_input_error(_arguments: dict[str, Any], exc: ValidationError) -> DomainError:
    """search_history's bad input: its first problem, named by the tool."""
    return ToolRefused(
        f"search_history: {exc.errors(include_url=False)[0]['msg']}",
        code="memory.invalid_argument",
    )


class HistorySearch:
    def __init__(self, store: Store, manifests: ManifestCache, search: SearchService) -> None:
        self._store = store
        self._manifests = manifests
        self._search = search

    # -- the search_history tool ----------------------------------------------------------------

    def offered(self, ctx: TurnContext, _arguments: dict[str, Any]) -> None:
        """search_history's guard: refused before its input is read when no history is kept."""
        if ctx.turn.sessionless:
            raise ToolRefused(
                "search_history is not offered: a turn without a session has no history "
                "(history stays with the session)",
                code="tool_not_offered",
            )
        if self._manifests.manifest(ctx.turn).harness.history.index is None:
            raise ToolRefused(
                "search_history is not offered: this agent keeps no history "
                "(harness.history.index is not set)",
                code="tool_not_offered",
            )

    def search_history(self, ctx: TurnContext, args: SearchHistoryIn) -> HistoryOut:
        history = self._manifests.manifest(ctx.turn).harness.history
        across = history.search == "agent"
        if args.ids:
            # Ids name events of the asking session (an event's id is unique in its session).
            cache = TurnCache(self._store, ctx.tenant, ctx.agent_id)
            events = [
                e
                for e in self._store.get_events(ctx.tenant, ctx.agent_id, ctx.session_id, args.ids)
                if self._visible_to_turn(ctx, e, cache)
            ]
            return HistoryOut(events=[whole_event(e) for e in events])
        if not args.query:
            raise ToolRefused("search_history needs a query or ids", code="memory.invalid_argument")
        try:
            position = Position.read(args.cursor, args.query)
        except InvalidRequest as exc:
            raise ToolRefused(str(exc), code="memory.invalid_argument") from exc
        if self._search.index is None:
            return HistoryOut(events=[], next=None)
        where = IndexFilter(
            kind="event",
            include_agent=False,
            session_id=None if across else ctx.session_id,
            include_all_sessions=across,
            preview="any" if ctx.preview else "live",
        )
        results, more, usage = self._ranked(
            ctx.tenant,
            ctx.agent_id,
            args.query,
            where,
            ctx.memory.search.mode,
            ctx.memory.search.min_score,
            lambda event, cache: self._visible_to_turn(ctx, event, cache),
            position,
            args.limit,
            self._named_time(args.query, lambda: self._asked_at(ctx)),
            ctx.memory.search.rerank,
            hops=history.entity_links,
        )
        ctx.usage.extend(usage)
        return HistoryOut(events=results, next=position.next(len(results)) if more else None)

    def _asked_at(self, ctx: TurnContext) -> datetime:
        """When the asking turn asks: the time of its latest event (an imported conversation's
        question carries its own), or when the turn began."""
        events = self._store.turn_events(ctx.tenant, ctx.agent_id, ctx.session_id, ctx.turn.id)
        return max((e.time for e in events), default=ctx.turn.created_at)

    @staticmethod
    def _named_time(query: str, asked_at: Callable[[], datetime]) -> list[Window]:
        """The windows the query names, relative to when it is asked (read only when it names
        one: most queries do not)."""
        if not windows(query, utcnow()):
            return []
        return windows(query, asked_at())

    def _visible_to_turn(self, ctx: TurnContext, event: HistoryEvent, cache: TurnCache) -> bool:
        """Kept, as searchable, by a committed turn; a preview turn's events only for preview
        turns. In the asking session, only turns before the asking one (a replay searches what
        its original saw); in another session (one its subject started, for a caller that
        reaches only those), turns that had ended before the asking one began. (Events kept only for post-turn extraction, before the manifest indexed history,
        are never searchable, not even by id.)"""
        if not event.searchable or (event.preview and not ctx.preview):
            return False
        done, ended = cache.committed(event)
        if not done:
            return False
        if event.session_id == ctx.session_id:
            return event.turn_sequence < ctx.root_turn.sequence
        # A token that reaches only its own sessions (sessions:own) never reads another
        # subject's through its agent's search.
        if ctx.sessions_of is not None and cache.owner(event.session_id) != ctx.sessions_of:
            return False
        if ctx.root_turn.id == ctx.turn.id:
            return True
        return ended is not None and ended <= ctx.root_turn.created_at

    # -- the management API -----------------------------------------------------------------------

    def search_agent(
        self,
        tenant: str,
        agent_id: str,
        query: str,
        session_id: str | None,
        from_time: datetime | None,
        to_time: datetime | None,
        limit: int,
        cursor: str | None,
    ) -> HistorySearchPage:
        """An app's search over the agent's history: every session (or one), committed live
        turns only, events in [from_time, to_time] when given. Its embedding is usage on the
        agent, ranked as the agent's current harness.memory.search says."""
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidRequest(f"limit must be between 1 and {MAX_LIMIT}", code="invalid_limit")
        if from_time and to_time and from_time > to_time:
            raise InvalidRequest("fromTime is after toTime", code="invalid_time_range")
        agent = self._store.get_agent(tenant, agent_id)
        if agent is None:
            raise NotFound(f"agent {agent_id!r} does not exist", code="agent_not_found")
        if session_id is not None and self._store.get_session(tenant, agent_id, session_id) is None:
            raise NotFound(f"session {session_id!r} does not exist", code="session_not_found")
        position = Position.read(cursor, query)
        if self._search.index is None:
            return HistorySearchPage(events=[], next=None)
        harness = Manifest.model_validate(agent.manifest).harness
        search = harness.memory.search
        where = IndexFilter(
            kind="event",
            include_agent=False,
            session_id=session_id,
            include_all_sessions=session_id is None,
        )
        visible = visible_to_apps(from_time, to_time)
        # Relative to the end of the window asked for, or now.
        named = self._named_time(query, lambda: to_time or utcnow())
        results, more, usage = self._ranked(
            tenant,
            agent_id,
            query,
            where,
            search.mode,
            search.min_score,
            visible,
            position,
            limit,
            named,
            search.rerank,
            hops=harness.history.entity_links,
        )
        if usage:
            self._store.add_usage(tenant, agent_id, usage_rows(agent_id, None, usage))
        return HistorySearchPage(events=results, next=position.next(len(results)) if more else None)

    def app_hits(
        self,
        tenant: str,
        agent_id: str,
        query: str,
        ranked: list[Ranked],
        limit: int,
        mode: str,
        best_words: float,
    ) -> list[tuple[Ranked, HistoryHit]]:
        """The best `limit` of ranked event parts an app may see (committed live turns), one
        an event, each with the candidate that found it. A reply's context credit goes to the
        message it answers as in every history search, scaled by the best words score of the
        search they were ranked in (`best_words`)."""
        visible = visible_to_apps()
        events = CandidateEvents(self._store, tenant, agent_id, None)
        ranked = credit_answered(ranked, answered(ranked, events), mode, best_words=best_words)
        ranked = self._replies_weighed(query, ranked, events)
        return self._best_visible(tenant, agent_id, query, ranked, visible, limit, events)[0]

    # -- ranking ------------------------------------------------------------------------------------

    def _ranked(
        self,
        tenant: str,
        agent_id: str,
        query: str,
        where: IndexFilter,
        mode: str,
        min_score: float | None,
        visible: Visible,
        position: Position,
        limit: int,
        named: list[Window],
        rerank: RerankConfig | None = None,
        hops: bool = False,
    ) -> tuple[list[HistoryHit], bool, list[UsageEntry]]:
        """The page of visible results at `position`, whether more follow, and the model calls
        made. Events the search may not return (the current turn's, a rolled-back or failed
        attempt's, another asker's preview) may fill the best candidates: then it looks deeper.
        Events said within a time the query names (`named`) rank higher. With a `rerank`, the
        first `rerank.top` results are put in its order before the page is cut (every page of
        one query cuts the same order).
        """
        end = position.offset + limit
        wanted = end if rerank is None else max(end, rerank.top)
        # Embedded once, however deep the search looks.
        query_vector, usage = self._search.embed_query(query, mode)
        depth = CANDIDATES
        while True:
            ranked, _ = self._search.rank(
                tenant,
                agent_id,
                query,
                where,
                mode,
                min_score,
                depth=depth,
                query_vector=query_vector,
            )
            events = CandidateEvents(self._store, tenant, agent_id, where.session_id)
            fused = ranked
            answers = answered(ranked, events)
            ranked = credit_answered(ranked, answers, mode)
            ranked = favour_windows(ranked, named)
            replies = self._replies(query, ranked, events)
            ranked = weigh_replies(ranked, replies)
            reach = None
            if hops and self._search.links is not None and ranked:
                from ..search import entity_reach, hopped  # loaded where links are on

                reach = entity_reach(query, self._search.links, tenant, agent_id)
                ranked = hopped(ranked, reach)
            if self._search.fusion is not None:
                from ..search import Signals  # loaded with the fusion, only where it is on

                signals = Signals(fused, answers, named, replies, reach, query)
                ranked = self._fused(ranked, signals, events)
            hits, left = self._best_visible(
                tenant, agent_id, query, ranked, visible, wanted, events
            )
            deeper = len(ranked) >= depth and depth < MAX_DEPTH
            if len(hits) >= wanted or not deeper:
                break
            depth *= 4
        results = [result for _, result in hits]
        ordered, spent = self._search.rerank.apply(query, results, _event_text, rerank)
        page = ordered[position.offset : end]
        # A next page when results or candidates are left unread past this one (it may come out
        # empty when none of them is visible: reading them all only to tell would cost every
        # search).
        more = len(ordered) > end or (len(hits) >= wanted and (left or deeper))
        return page, more, usage + spent

    @staticmethod
    def _replies_weighed(query: str, ranked: list[Ranked], events: CandidateEvents) -> list[Ranked]:
        """The assistant's events weighed lower (ranking.weigh_replies), unless the query asks
        what the assistant itself said."""
        return weigh_replies(ranked, HistorySearch._replies(query, ranked, events))

    @staticmethod
    def _replies(query: str, ranked: list[Ranked], events: CandidateEvents) -> set[str]:
        """The replies among `ranked` to weigh lower: none when the query asks what the
        assistant itself said."""
        if asks_for_replies(query):
            return set()
        return replies_among(ranked, events)

    def _fused(
        self, ranked: list[Ranked], signals: Signals, _events: CandidateEvents
    ) -> list[Ranked]:
        """The hand-set ranking put in the learned model's order (AGENT_MEMORY_SEARCH_FUSION;
        search/fusion.py). Its candidates' events (`_events`) are there for what measures it."""
        assert self._search.fusion is not None
        return self._search.fusion.rescore(ranked, signals)

    def _best_visible(
        self,
        tenant: str,
        agent_id: str,
        query: str,
        ranked: list[Ranked],
        visible: Visible,
        wanted: int,
        events: CandidateEvents,
    ) -> tuple[list[tuple[Ranked, HistoryHit]], bool]:
        """The best `wanted` visible results, one an event, each with the candidate that found
        it; and whether candidates were left unexamined."""
        cache = TurnCache(self._store, tenant, agent_id)
        words = set(tokenize(query, query=True))
        # Events are read a batch at a time as the candidates are walked, the first batch a
        # little more than the page wants (most candidates are visible).
        batch = min(READ_AHEAD, 2 * wanted + 5)
        results: list[tuple[Ranked, HistoryHit]] = []
        returned: set[tuple[str, str]] = set()
        for at, candidate in enumerate(ranked):
            k = events.key(candidate)
            if not events.known(candidate):
                # The next candidates' events in one read, not one by one.
                events.read([c for c in ranked[at:] if not events.known(c)][:batch])
                batch = READ_AHEAD
            event = events.get(candidate)
            if event is None or k in returned or not visible(event, cache):
                continue
            suffix = candidate.id.rpartition(".")[2]
            parts = event.parts
            if suffix == KEY_PART:
                # Found by a fact a review drew from it (history_keys): show the part holding
                # the query's words, else the first.
                part = event.best_part(words)
            else:
                part = int(suffix)
                if part > len(parts):
                    continue
                if part == 1 and candidate.lexical is not None:
                    # Found by the event's words (all on its first part): show the part holding
                    # them.
                    part = event.best_part(words)
            returned.add(k)  # an event's later parts add nothing to its best one
            results.append((candidate, found_part(event, part, parts)))
            if len(results) >= wanted:
                return results, at + 1 < len(ranked)
        return results, False


def _event_text(hit: HistoryHit) -> str:
    """What a reranker reads of a found event: the part that was found."""
    return hit.text
