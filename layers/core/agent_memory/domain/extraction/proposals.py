"""A review's writes as proposals (harness.memory.extraction.approval "review"): each add,
replace and delete becomes a PENDING record that keeps what it proposes and the review's
evidence, and changes no memory until an app approves it (extraction/approval.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..kernel.ids import new_id
from ..kernel.models import Change, Extraction, Turn, utcnow
from ..records import ProposedWrite, Record, RecordStatus
from ..turns import RecordAdd, RecordAddEffect, RecordEffect
from .pipeline import ValidDecision
from .writes import review_provenance

if TYPE_CHECKING:
    from ..store import Store


def proposal_effects(
    store: Store, turn: Turn, valid: Sequence[ValidDecision]
) -> list[RecordEffect]:
    """One new PENDING record for each decision the review would apply, in order: an add or a
    replace holds the candidate as the memory it would become (in the scope it would be
    written in); a delete holds the candidate that asked for it (its evidence). A replace or
    delete names its target and the version the target had when the review proposed it."""
    targets = [v.decision.target for v in valid if v.decision.target]
    versions = {r.id: r.version for r in store.get_records(turn.tenant, turn.agent_id, targets)}
    now = utcnow()
    effects: list[RecordEffect] = []
    for each in valid:
        decision, candidate = each.decision, each.candidate
        if decision.action not in ("add", "replace", "delete"):
            continue  # a skip proposes nothing
        target = decision.target if decision.action != "add" else None
        if decision.action != "add" and target not in versions:
            continue  # validation keeps only targets it showed; one gone since has no version
        record = Record(
            tenant=turn.tenant,
            agent_id=turn.agent_id,
            id=new_id("rec"),
            scope="agent" if each.scope == "agent" else "session",
            session_id=turn.session_id if each.scope == "session" else None,
            summary=candidate.summary,
            content=candidate.content,
            kind=candidate.kind,
            labels=dict(candidate.labels),
            status=RecordStatus.PENDING,
            proposal=ProposedWrite(
                action=decision.action,
                target=target,
                target_version=versions.get(target) if target else None,
            ),
            provenance=review_provenance(turn, candidate),
            created_at=now,
            updated_at=now,
        )
        effects.append(
            RecordAddEffect(
                effect_id=f"extraction:{turn.id}:{len(effects)}",
                turn_id=turn.id,
                sequence=len(effects),
                payload=RecordAdd(record=record),
            )
        )
    return effects


def as_proposed(done: Extraction, count: int) -> Extraction:
    """The finished review when its writes wait for approval: nothing added, replaced or
    deleted yet; `proposed` records left PENDING."""
    return done.model_copy(update={"added": 0, "replaced": 0, "deleted": 0, "proposed": count})


def proposed(changes: Sequence[Change]) -> list[Change]:
    """The review's changes as its events announce them: each a new PENDING record, operation
    `propose`, so a subscriber does not take it for a memory."""
    return [c.model_copy(update={"operation": "propose"}) for c in changes]
