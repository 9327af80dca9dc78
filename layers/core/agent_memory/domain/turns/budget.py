"""What one turn may stage: its writes must fit one store transaction when it commits, and a
write the store would not stage says why (the turn ended, or another write took its place).
Record and file tools alike stage through these checks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..kernel.errors import Conflict
from ..kernel.models import TurnStatus
from ..kernel.records import Record, to_doc
from .context import TurnContext, turn_closed
from .effects import Effect, FileChange, RecordAdd, RecordDelete

if TYPE_CHECKING:
    from ..store import Store

# DynamoDB takes at most 100 actions in one TransactWriteItems; a staged write touches at most
# four items (new head and version, replaced head and version) and the turn takes one more.
MAX_WRITES_PER_TURN = 24
# ... and whatever the staged writes hold, the commit also writes the turn, checks the agent and
# may move the memory count: the rest is for the writes' own items.
MAX_ITEMS_PER_TURN = 100 - 3
# DynamoDB takes at most 4 MB in one transaction and a write stores its content twice (head and
# version): a turn stages at most 1 MiB of writes, which leaves room for keys and replaced heads.
MAX_STAGED_BYTES = 1024 * 1024


def check_turn_budget(
    staged: Sequence[Effect], payload: RecordAdd | RecordDelete | FileChange
) -> None:
    """A turn's staged writes must fit one store transaction when it commits."""
    if len(staged) >= MAX_WRITES_PER_TURN:
        raise Conflict(
            f"a turn writes at most {MAX_WRITES_PER_TURN} memories; commit this turn and "
            "continue in the next",
            code="memory.turn_limit",
        )
    # One memory tool call may change a whole folder: count the items it writes too.
    items = sum(_items(e.payload) for e in staged) + _items(payload)
    if items > MAX_ITEMS_PER_TURN:
        raise Conflict(
            f"this change would take the turn's commit to {items} stored items, over the "
            f"{MAX_ITEMS_PER_TURN} one commit writes (a folder of many memories counts each); "
            "commit this turn and continue in the next, or change fewer memories at once",
            code="memory.turn_limit",
        )
    # A replace or delete writes its target again (head and version): counted too. The write
    # asked about is counted as it always was: before its stage stamps who deleted and what a
    # command read.
    asked = _staged_bytes(payload, leave_out=frozenset({"by", "read"}))
    size = sum(_staged_bytes(e.payload) for e in staged) + asked
    if size > MAX_STAGED_BYTES:
        raise Conflict(
            f"a turn writes at most {MAX_STAGED_BYTES // 1024} KiB of memory; commit this turn "
            "and continue in the next",
            code="memory.turn_limit",
        )


def stored_bytes(record: Record) -> int:
    """About what a record's head (or one of its versions) takes in the store, as JSON."""
    return len(json.dumps(to_doc(record)))


def _staged_bytes(
    payload: RecordAdd | RecordDelete | FileChange, leave_out: frozenset[str] = frozenset()
) -> int:
    doc = payload.model_dump(mode="json", exclude=set(leave_out))
    target = 0 if isinstance(payload, FileChange) else payload.target_bytes
    return len(json.dumps(doc)) + 2 * target


def _items(payload: RecordAdd | RecordDelete | FileChange) -> int:
    """The items an effect writes when its turn commits: a record write at most four; a file
    change its head and its version, a rename also the head it leaves."""
    if not isinstance(payload, FileChange):
        return 4
    return sum(3 if c.operation == "rename" else 2 for c in payload.changes)


def staging_refused(store: Store, ctx: TurnContext) -> Conflict:
    """Why a write could not be staged: the turn ended meanwhile (its commit or rollback won),
    or another write of the turn took the same place."""
    turn = store.get_turn(ctx.tenant, ctx.agent_id, ctx.session_id, ctx.turn.id)
    if turn is not None and turn.status is not TurnStatus.OPEN:
        return turn_closed(turn)
    if turn is None:
        return Conflict(
            f"turn {ctx.turn.id!r} is gone: this write was not kept",
            code="turn_closed",
            status="gone",
        )
    return Conflict(
        "another write of this turn was staged at the same moment; retry", code="turn_busy"
    )
