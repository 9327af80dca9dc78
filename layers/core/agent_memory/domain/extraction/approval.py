"""An app's decision on a review's pending write (harness.memory.extraction.approval "review").

Approving applies the write as the review would have, against the memory as it stands now, not
as it stood when the review proposed it:

- an add (or a replace) that now restates an active memory is refused, 409
  `proposal_restates`, naming that memory: approving it would keep a fact twice;
- a replace or delete whose target moved since (a new version, or no longer ACTIVE) is refused,
  409 `proposal_stale`: the review decided against a memory that is not there any more.

A refused approval changes nothing: the record stays PENDING, for the app to reject (or to
approve once the restated memory is gone). Rejecting marks it REJECTED. Either decision is a
new version naming who made it, and is announced as `agent.memory_updated`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from ..kernel.errors import Conflict
from ..kernel.events import Change, Event, EventPublisher
from ..kernel.ids import new_id
from ..kernel.models import utcnow
from ..kernel.records import RecordOperation, RecordVersion
from ..kernel.retry import optimistic
from ..records import (
    Provenance,
    Record,
    RecordQuery,
    RecordService,
    RecordStatus,
    RecordWrite,
    rank_lexical,
)
from .restatements import read, restates

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)

# Decisions racing other writes to the same records: each loser reads them again.
_DECIDE_ATTEMPTS = 10
# The active memories an approval compares a proposed fact with: the best matches of the
# index, and the newest from the store (an index fed from a stream may lag a moment behind).
_RANKED = 10
_RECENT = 200


class ProposalReview:
    """`POST /agents/{agentId}/records/{recordId}/approve` and `.../reject`."""

    def __init__(self, store: Store, records: RecordService, events: EventPublisher) -> None:
        self._store = store
        self._records = records
        self._events = events

    def approve(self, tenant: str, agent_id: str, record_id: str, actor: str) -> Record:
        """Apply the pending write `record_id` proposes; the record as approved."""

        def approve_once() -> Record:
            record = self._pending(tenant, agent_id, record_id, "approve")
            target = self._unmoved_target(tenant, agent_id, record)
            action = record.proposal.action if record.proposal else "add"
            if action != "delete":
                self._not_restated(tenant, agent_id, record, target)
            now = utcnow()
            by = Provenance(actor=actor)
            approved = record.model_copy(
                update={
                    # A delete's proposal never was a memory: it ends with its target.
                    "status": RecordStatus.DELETED if action == "delete" else RecordStatus.ACTIVE,
                    "replaces": target.id if action == "replace" and target else None,
                    "version": record.version + 1,
                    "updated_at": now,
                }
            )
            writes = [self._write(record, approved, RecordOperation.APPROVE, by, now)]
            changed = [(approved, RecordOperation.APPROVE.value)]
            if target is not None:
                ended = target.model_copy(
                    update={
                        "status": RecordStatus.SUPERSEDED
                        if action == "replace"
                        else RecordStatus.DELETED,
                        "replaced_by": approved.id if action == "replace" else None,
                        "pinned": target.pinned if action == "replace" else False,
                        "version": target.version + 1,
                        "updated_at": now,
                    }
                )
                operation = (
                    RecordOperation.SUPERSEDE if action == "replace" else RecordOperation.DELETE
                )
                writes.append(self._write(target, ended, operation, by, now))
                changed.append((ended, operation.value))
            self._store.write_records(tenant, agent_id, writes)  # lost a race: read again
            logger.info(
                "proposal approved",
                extra={"record_id": record_id, "action": action, "actor": actor},
            )
            self._publish(tenant, agent_id, approved, changed, now)
            return approved

        return self._decide(approve_once)

    def reject(self, tenant: str, agent_id: str, record_id: str, actor: str) -> Record:
        """Refuse the pending write `record_id` proposes: it is kept REJECTED, never applied."""

        def reject_once() -> Record:
            record = self._pending(tenant, agent_id, record_id, "reject")
            now = utcnow()
            rejected = record.model_copy(
                update={
                    "status": RecordStatus.REJECTED,
                    "version": record.version + 1,
                    "updated_at": now,
                }
            )
            write = self._write(
                record, rejected, RecordOperation.REJECT, Provenance(actor=actor), now
            )
            self._store.write_records(tenant, agent_id, [write])
            logger.info("proposal rejected", extra={"record_id": record_id, "actor": actor})
            self._publish(tenant, agent_id, rejected, [(rejected, "reject")], now)
            return rejected

        return self._decide(reject_once)

    # -- pieces ---------------------------------------------------------------------------------

    def _decide(self, attempt: Callable[[], Record]) -> Record:
        return optimistic(
            attempt,
            attempts=_DECIDE_ATTEMPTS,
            hold=self._store.exclusive,
            exhausted=lambda: Conflict(
                "the record is changing too fast; try again", code="record_busy"
            ),
        )

    def _pending(self, tenant: str, agent_id: str, record_id: str, verb: str) -> Record:
        record = self._records.get(tenant, agent_id, record_id)  # 404 when there is none
        if record.status is not RecordStatus.PENDING:
            raise Conflict(
                f"cannot {verb} record {record_id!r}: it is {record.status.value}, and only a "
                "PENDING record (a review's write waiting for approval) is approved or rejected",
                code="record_not_pending",
                status=record.status.value,
            )
        return record

    def _unmoved_target(self, tenant: str, agent_id: str, record: Record) -> Record | None:
        """The record a replace or delete proposal names, unchanged since the proposal."""
        proposal = record.proposal
        if proposal is None or proposal.target is None:
            return None
        found = self._store.get_records(tenant, agent_id, [proposal.target])
        target = found[0] if found else None
        if (
            target is None
            or target.status is not RecordStatus.ACTIVE
            or target.version != proposal.target_version
        ):
            now = "gone" if target is None else f"{target.status.value} at version {target.version}"
            raise Conflict(
                f"record {record.id!r} proposes to {proposal.action} {proposal.target!r} as it "
                f"was at version {proposal.target_version}; it is {now}. Reject this proposal "
                "(a later review decides against the memory as it is now).",
                code="proposal_stale",
                target=proposal.target,
                targetVersion=proposal.target_version,
            )
        return target

    def _not_restated(
        self, tenant: str, agent_id: str, record: Record, target: Record | None
    ) -> None:
        """409 `proposal_restates` when an active memory the record would sit beside already
        says what it says (the review's own rule for restatements, by words)."""
        query = RecordQuery(include_agent=True, session_id=record.session_id)
        text = record.summary + (f"\n{record.content}" if record.content else "")
        ranked = self._records.list_records(tenant, agent_id, query, text, _RANKED, None).items
        recent = self._store.find_records(tenant, agent_id, query, _RECENT, None)
        fact = read(record.summary)
        skip = {record.id, target.id if target else ""}
        for memory in [*ranked, *rank_lexical(text, recent)[:_RANKED]]:
            if memory.id in skip or memory.status is not RecordStatus.ACTIVE:
                continue
            same = _said(memory) == _said(record)
            if same or restates(fact, read(memory.summary), None):
                raise Conflict(
                    f"record {record.id!r} restates the active memory {memory.id!r} "
                    f"({memory.summary!r}); reject it, or delete that memory first",
                    code="proposal_restates",
                    restated=memory.id,
                )

    def _write(
        self,
        before: Record,
        after: Record,
        operation: RecordOperation,
        by: Provenance,
        now: datetime,
    ) -> RecordWrite:
        search = self._records.search
        return RecordWrite(
            # A status change keeps the text: the index keeps the vector it has.
            index=search.doc_without_vector(after) if search.inline else None,
            record=after,
            expected_version=before.version,
            versions=[RecordVersion(record=after, operation=operation, changed_by=by, at=now)],
        )

    def _publish(
        self,
        tenant: str,
        agent_id: str,
        decided: Record,
        changed: list[tuple[Record, str]],
        now: datetime,
    ) -> None:
        """`agent.memory_updated` naming each record the decision changed, as an app's delete
        announces its own (no turn made it)."""
        changes = [Change(id=r.id, operation=op, version=r.version) for r, op in changed]
        self._events.publish(
            [
                Event(
                    type="agent.memory_updated",
                    tenant=tenant,
                    agent_id=agent_id,
                    session_id=decided.session_id,
                    effect_id=new_id("eff"),
                    changes=changes,
                    at=now,
                )
            ]
        )


def _said(record: Record) -> str:
    """What a record says, compared whole: its words, lower case, spaces squeezed."""
    text = f"{record.summary} {record.content or ''}"
    return " ".join(text.lower().split()).rstrip(".! ")
