"""Reports on a turn and an agent beside the tool calls: a turn's detail (its memories,
executions, usage and pending vectors), the agent's usage page, and the one place a tool call's
or recall's usage (embedding tokens) is written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import astuple, dataclass
from typing import TYPE_CHECKING, Any

from ..kernel.models import Turn
from ..kernel.paging import check_limit, decode_cursor, page, str_field
from ..kernel.where import TurnRef
from ..records import RecordService
from ..search import SearchService
from ..turns import TurnContext
from ..usage import UsagePage, usage_rows
from .answers import TurnWithWrites
from .service import SessionService

if TYPE_CHECKING:
    from ..store import Store


def record_usage(store: Store, turn: Turn, execution_id: str | None, ctx: TurnContext) -> None:
    """The usage a turn's call spent, named by its execution (None: a recall not recorded)."""
    if not ctx.usage:
        return
    store.add_usage(
        turn.tenant,
        turn.agent_id,
        usage_rows(turn.agent_id, None, ctx.usage, turn=turn, execution_id=execution_id),
    )


@dataclass(frozen=True)
class TurnAccess:
    """What the reads beside the tool calls (recall, instructions, turn detail, usage) share:
    the store, the turn lookups, record memory, and how ToolService builds a turn's context."""

    store: Store
    sessions: SessionService
    records: RecordService
    context: Callable[[Turn, Any], TurnContext]


class TurnReads:
    """`GET .../turns/{turnId}` and `GET .../usage` (ToolService delegates here)."""

    def __init__(self, turns: TurnAccess, search: SearchService | None) -> None:
        self._turns = turns
        self._search = search

    def turn_detail(self, where: TurnRef) -> TurnWithWrites:
        turn = self._turns.sessions.get_turn(where)
        tenant, agent_id, turn_id = where.tenant, where.agent_id, where.turn_id
        ctx = self._turns.context(turn, {"role": "agent"})
        return TurnWithWrites(
            **{name: getattr(turn, name) for name in Turn.model_fields},
            memories=self._turns.records.turn_memories(ctx),
            executions=self._turns.store.list_executions(*astuple(where)),
            usage=self._turns.store.list_usage(tenant, agent_id, turn_id, 200, None),
            # What the turn wrote that is found by words but not yet by meaning (embedded:
            # the background embedder adds the vectors; null where that cannot be told).
            pending_vectors=self._search.pending_vectors(tenant, agent_id, turn_id)
            if self._search is not None
            else None,
        )

    def usage(
        self,
        tenant: str,
        agent_id: str,
        turn_id: str | None,
        limit: int | None,
        cursor: str | None,
    ) -> UsagePage:
        self._turns.sessions.agent(tenant, agent_id)
        size = check_limit(limit)
        before = str_field(decode_cursor(cursor), "before")
        entries = self._turns.store.list_usage(tenant, agent_id, turn_id, size + 1, before)
        result = page(entries, size, lambda last: {"before": last.id})
        return UsagePage(
            usage=result.items,
            next=result.next,
            totals=self._turns.store.usage_totals(tenant, agent_id),
        )
