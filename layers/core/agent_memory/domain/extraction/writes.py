"""What a post-turn review writes: its valid decisions as record effects attributed to the
turn, corrections of agent-scope memories kept in agent scope, the decisions that fit the one
transaction a review applies, and the finished review's summary on the turn."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..history import EventKeys, key_doc, proposed_keys
from ..kernel.ids import new_id
from ..kernel.models import Extraction, ExtractionStatus, Turn, utcnow
from ..records import Provenance, Record, RecordRestate
from ..search import IndexDoc, SearchService
from ..turns import (
    RecordAdd,
    RecordAddEffect,
    RecordDelete,
    RecordDeleteEffect,
    RecordEffect,
    stored_bytes,
)
from .model import Candidate, ModelUsage, Proposal
from .pipeline import Dropped, ValidDecision

if TYPE_CHECKING:
    from ..store import Store

# What one review's transaction may write, estimated as JSON (DynamoDB takes 4 MB, keys, the
# turns it flags read and escapes beside).
MAX_REVIEW_BYTES = 3 * 1024 * 1024


def review_effects(
    turn: Turn, valid: Sequence[ValidDecision], shown: Sequence[str] = ()
) -> list[RecordEffect | RecordRestate]:
    """The staged writes of the review's decisions, in order: a new record for each add and
    replace (in the scope the decision writes), a deletion for each delete, and for a skip that
    names a memory it was shown (a restatement), that memory citing the candidate's messages
    too: a question about the conversation that said it again still finds the memory."""
    now = utcnow()
    known = set(shown)
    effects: list[RecordEffect | RecordRestate] = []
    for each in valid:
        decision, candidate = each.decision, each.candidate
        by = review_provenance(turn, candidate)
        effect_id = f"extraction:{turn.id}:{len(effects)}"
        if decision.action in ("add", "replace"):
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
                replaces=decision.target if decision.action == "replace" else None,
                provenance=by,
                created_at=now,
                updated_at=now,
            )
            effects.append(
                RecordAddEffect(
                    effect_id=effect_id,
                    turn_id=turn.id,
                    sequence=len(effects),
                    payload=RecordAdd(record=record),
                )
            )
        elif decision.action == "delete" and decision.target is not None:
            # The review's validation drops a delete that names no target.
            effects.append(
                RecordDeleteEffect(
                    effect_id=effect_id,
                    turn_id=turn.id,
                    sequence=len(effects),
                    payload=RecordDelete(id=decision.target, by=by),
                )
            )
        elif decision.action == "skip" and decision.target in known and candidate.sources:
            effects.append(
                RecordRestate(
                    effect_id=effect_id,
                    sequence=len(effects),
                    record_id=decision.target,
                    sources=tuple(candidate.sources),
                    by=by,
                )
            )
    return effects


def review_provenance(turn: Turn, candidate: Candidate) -> Provenance:
    """A review's write is the agent's own, made by the turn it reviews, under the review's
    execution (which is also the invocation: no caller invoked it)."""
    execution = f"extraction:{turn.id}"
    return Provenance(
        actor=f"agent:{turn.agent_id}@{turn.manifest_version}",
        execution=execution,
        invocation=execution,
        manifest_version=turn.manifest_version,
        session_id=turn.own_session_id,
        turn_id=turn.id,
        trigger_run_id=turn.trigger_run_id,
        sources=list(candidate.sources),
    )


def corrections_keep_scope(
    store: Store, turn: Turn, valid: list[ValidDecision], write: Sequence[str]
) -> list[ValidDecision]:
    """A replacement of an agent-scope memory, when the agent writes agent scope: stays in
    agent scope when the model chose no scope (a session-scope correction would take the fact
    away from every other session while this one kept a copy); and when the model put it in
    session scope (a state of this conversation: "I'm in Madrid this week" against "User lives
    in Lisbon"), it is added beside the memory instead of superseding it."""
    if "agent" not in write:
        return valid
    asked = [v.decision.target for v in valid if v.decision.action == "replace"]
    if not asked:
        return valid
    records = store.get_records(turn.tenant, turn.agent_id, [t for t in asked if t])
    agent_scope = {r.id for r in records if r.scope == "agent"}
    kept: list[ValidDecision] = []
    for v in valid:
        if v.decision.action != "replace" or v.decision.target not in agent_scope:
            kept.append(v)
        elif v.candidate.scope is None:
            kept.append(dataclasses.replace(v, scope="agent"))
        elif v.scope == "session":
            beside = v.decision.model_copy(
                update={
                    "action": "add",
                    "target": None,
                    "reason": f"session-only; {v.decision.target} stays for other sessions",
                }
            )
            kept.append(dataclasses.replace(v, decision=beside))
        else:
            kept.append(v)
    return kept


def within_one_write(
    store: Store, turn: Turn, valid: list[ValidDecision]
) -> tuple[list[ValidDecision], list[Dropped]]:
    """The decisions whose writes fit the one transaction a review applies them in, in
    the model's order: each new record is written twice (head and version), and so is each
    record replaced or deleted. Past MAX_REVIEW_BYTES, a decision is dropped (and said in
    the review's `dropped`) rather than the whole review failing on every try."""
    targets = [v.decision.target for v in valid if v.decision.target]
    stored = {r.id: stored_bytes(r) for r in store.get_records(turn.tenant, turn.agent_id, targets)}
    kept: list[ValidDecision] = []
    left: list[Dropped] = []
    used = 0
    for each in valid:
        action = each.decision.action
        cost = 0
        if action in ("add", "replace"):
            cost += 2 * len(json.dumps(each.candidate.model_dump(mode="json")))
        if action in ("replace", "delete", "skip") and each.decision.target:
            # A skip that restates a memory writes it again, citing the candidate's messages.
            cost += 2 * stored.get(each.decision.target, 0)
        if cost and used + cost > MAX_REVIEW_BYTES:
            reason = "left out: the review's writes would pass what one transaction holds"
            left.append(Dropped(each.decision, reason))
            continue
        used += cost
        kept.append(each)
    return kept, left


def finished(
    state: Extraction,
    proposal: Proposal,
    candidates: int,
    valid: Sequence[ValidDecision],
    dropped: Sequence[Dropped],
    usage: Sequence[ModelUsage],
) -> Extraction:
    """The review as its turn shows it once done: what it read, what it did with each
    candidate, what it dropped and why, and what its model calls cost."""
    counts = {"add": 0, "replace": 0, "delete": 0, "skip": 0}
    for each in valid:
        counts[each.decision.action] += 1
    return state.model_copy(
        update={
            "status": ExtractionStatus.DONE,
            "messages": state.messages if proposal.messages is None else proposal.messages,
            "through": state.through if proposal.through is None else proposal.through,
            "candidates": candidates,
            "added": counts["add"],
            "replaced": counts["replace"],
            "deleted": counts["delete"],
            "skipped": counts["skip"],
            "dropped": [f"candidate {d.decision.candidate}: {d.reason}" for d in dropped],
            "model_calls": len(usage),
            "input_tokens": sum(u.input_tokens for u in usage),
            "output_tokens": sum(u.output_tokens for u in usage),
            "error": None,
            "ended_at": utcnow(),
        }
    )


def fact_keys(
    store: Store,
    search: SearchService,
    turn: Turn,
    done: Extraction,
    proposal: Proposal,
    wanted: bool,
) -> tuple[list[EventKeys], list[IndexDoc]]:
    """The facts the review proposed from each message it read, as keys of the message's event
    (history_keys), and their key documents when the store holds its own index (embedded; the
    cloud's stream indexer makes them from the turns' keys), versioned by the review's end as
    the cloud's are. None unless `wanted`."""
    if not wanted or not proposal.candidates:
        return [], []
    events = [
        event
        for turn_id in proposal.read
        for event in store.turn_events(turn.tenant, turn.agent_id, turn.session_id, turn_id)
    ]
    keys = proposed_keys(events, proposal.candidates)
    if not search.inline:
        return keys, []
    at = done.ended_at or utcnow()
    embed = search.embedder is not None
    return keys, [key_doc(turn.tenant, turn.agent_id, k, at, embed) for k in keys]
