"""What a consolidation would change in an agent's record memory, worked out from the records as
read and nothing else (no writes): a pure plan the service then applies record by record.

Records are compared only within one pool: the agent-scope records together, and each
session's session-scope records together (never across: a session's record is seen in that
session only, so folding it into an agent-scope record, or the reverse, would change who sees
it). Within a pool, in this order, each record taking at most one action:

1. a contradiction (restatements.corrects: a single-valued attribute given two values, "Alice
   lives in Paris" / "Alice lives in Rome") keeps the newer fact; the older is SUPERSEDED by it;
2. twins (restatements.restates either way, cosine >= TWIN_AT where an embedder is given,
   words otherwise) are merged into the most complete of them (most words of its own; the
   newest on a tie; a pinned one first, so a pin is not lost): the others SUPERSEDED by it;
3. a stale event (kind `event` older than its lifetime) is expired: expiresAt set to now;
4. pinned records beyond the pin budget are unpinned, oldest first (the agent-scope pins
   against the budget; then each session's pins against what the agent-scope ones leave).

Only records of the same kind and the same labels are twins or contradictions: a guidance and
a fact saying alike, or two customers' records, are not one record.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from ..records import Record, pin_tokens
from .consolidation_models import ConsolidationCounts, PlannedAction
from .restatements import Fact, corrects, read, restates

# Cosine of two summaries' vectors; None when nothing embeds (words alone decide).
Cosine = Callable[[Record, Record], float | None]


@dataclass(frozen=True)
class PlanRules:
    """What the manifest asks of a consolidation."""

    # Events older than this are expired; None: events do not go stale.
    event_lifetime: timedelta | None
    # harness.memory.pinned.max_tokens; None: the agent pins nothing, no budget to keep.
    pin_budget: int | None


def _pool(record: Record) -> tuple[str, str | None]:
    return (record.scope, record.session_id if record.scope == "session" else None)


def _group(record: Record, fact: Fact) -> tuple[object, ...]:
    """Records that may be twins or contradict: one pool, kind, labels and subject."""
    return (_pool(record), record.kind, tuple(sorted(record.labels.items())), fact.subject)


def _completeness(record: Record, fact: Fact) -> tuple[bool, int, int, datetime, str]:
    """Which of several twins is kept: pinned, then the most words of its own (summary, then
    content), then the newest."""
    content = len(read(record.content).words) if record.content else 0
    return (record.pinned, len(fact.words), content, record.created_at, record.id)


def plan(
    records: Sequence[Record], rules: PlanRules, now: datetime, cosine: Cosine
) -> list[PlannedAction]:
    """The actions that consolidate `records` (the agent's ACTIVE live records), in the order
    they are applied. A record without an action is kept as it is."""
    facts = {r.id: read(r.summary) for r in records}
    groups: dict[tuple[object, ...], list[Record]] = defaultdict(list)
    for record in records:
        groups[_group(record, facts[record.id])].append(record)
    actions: list[PlannedAction] = []
    gone: set[str] = set()
    for members in groups.values():
        if len(members) < 2:
            continue
        actions += _contradictions(members, facts, gone)
        actions += _twins([m for m in members if m.id not in gone], facts, cosine, gone)
    actions += _stale(records, rules, now, gone)
    actions += _over_budget(records, rules, gone)
    return actions


def _contradictions(
    members: list[Record], facts: dict[str, Fact], gone: set[str]
) -> list[PlannedAction]:
    """Newest first: each older record whose single-valued attribute a newer one gives
    another value is superseded by the newest such."""
    out: list[PlannedAction] = []
    newest_first = sorted(members, key=lambda r: (r.created_at, r.id), reverse=True)
    for i, newer in enumerate(newest_first):
        if newer.id in gone:
            continue
        for older in newest_first[i + 1 :]:
            if older.id in gone or not corrects(facts[newer.id], facts[older.id], False):
                continue
            gone.add(older.id)
            out.append(
                PlannedAction(
                    action="supersede",
                    record_id=older.id,
                    kept_id=newer.id,
                    version=older.version,
                    reason=f"contradicted by the newer {newer.id}: "
                    f"{facts[newer.id].key} is now {' '.join(sorted(facts[newer.id].value))}",
                )
            )
    return out


def _twins(
    members: list[Record], facts: dict[str, Fact], cosine: Cosine, gone: set[str]
) -> list[PlannedAction]:
    """The most complete first: each record that restates one kept before it (or that one
    restates) is merged into it."""
    out: list[PlannedAction] = []
    kept: list[Record] = []
    ordered = sorted(members, key=lambda r: _completeness(r, facts[r.id]), reverse=True)
    for record in ordered:
        said = facts[record.id]
        into = None
        for other in kept:
            if _twin(said, facts[other.id], partial(cosine, record, other)):
                into = other
                break
        if into is None:
            kept.append(record)
            continue
        gone.add(record.id)
        out.append(
            PlannedAction(
                action="merge",
                record_id=record.id,
                kept_id=into.id,
                version=record.version,
                reason=f"restates {into.id}",
            )
        )
    return out


def _twin(a: Fact, b: Fact, cosine: Callable[[], float | None]) -> bool:
    """Whether one of two facts restates the other; their cosine asked only when it could
    decide (restates is monotone in it: true at 1.0 is the only way meaning may matter)."""
    for x, y in ((a, b), (b, a)):
        if restates(x, y, None):
            return True
    if not (restates(a, b, 1.0) or restates(b, a, 1.0)):
        return False
    near = cosine()
    return near is not None and (restates(a, b, near) or restates(b, a, near))


def needs_meaning(records: Sequence[Record]) -> set[str]:
    """The records whose summaries' meaning a plan may ask for: those with a possible twin
    that words alone do not settle (so only those are embedded)."""
    facts = {r.id: read(r.summary) for r in records}
    groups: dict[tuple[object, ...], list[Record]] = defaultdict(list)
    for record in records:
        groups[_group(record, facts[record.id])].append(record)
    wanted: set[str] = set()
    for members in groups.values():
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                fa, fb = facts[a.id], facts[b.id]
                if restates(fa, fb, None) or restates(fb, fa, None):
                    continue
                if restates(fa, fb, 1.0) or restates(fb, fa, 1.0):
                    wanted.update((a.id, b.id))
    return wanted


def _stale(
    records: Sequence[Record], rules: PlanRules, now: datetime, gone: set[str]
) -> list[PlannedAction]:
    """Events older than their lifetime that no expiresAt of their own keeps."""
    if rules.event_lifetime is None:
        return []
    out: list[PlannedAction] = []
    for record in records:
        if record.id in gone or record.kind != "event" or record.expires_at is not None:
            continue
        if record.created_at + rules.event_lifetime <= now:
            gone.add(record.id)
            out.append(
                PlannedAction(
                    action="expire",
                    record_id=record.id,
                    version=record.version,
                    reason=f"an event older than {_days(rules.event_lifetime)}",
                )
            )
    return out


def _over_budget(
    records: Sequence[Record], rules: PlanRules, gone: set[str]
) -> list[PlannedAction]:
    """Pins beyond the budget, oldest unpinned first: agent-scope pins on their own, then
    each session's pins beside the agent-scope pins kept."""
    if rules.pin_budget is None:
        return []
    budget = rules.pin_budget
    pinned = [r for r in records if r.pinned and r.id not in gone]
    out: list[PlannedAction] = []

    def within(candidates: list[Record], taken: list[Record]) -> list[Record]:
        kept = list(taken)
        for record in sorted(candidates, key=lambda r: (r.created_at, r.id), reverse=True):
            if pin_tokens([*kept, record]) <= budget:
                kept.append(record)
                continue
            out.append(
                PlannedAction(
                    action="unpin",
                    record_id=record.id,
                    version=record.version,
                    reason=f"the pinned list is over its budget of {budget} tokens",
                )
            )
        return kept

    agent_pins = within([r for r in pinned if r.scope == "agent"], [])
    sessions: dict[str | None, list[Record]] = defaultdict(list)
    for record in pinned:
        if record.scope == "session":
            sessions[record.session_id].append(record)
    for own in sessions.values():
        within(own, agent_pins)
    return out


def _days(span: timedelta) -> str:
    return f"{span.days} days" if span.days and not span.seconds else str(span)


def counts(actions: Sequence[PlannedAction], active: int) -> ConsolidationCounts:
    """The counts of the `actions` applied (those not skipped) among `active` records."""
    done = [a for a in actions if a.skipped is None]
    by: dict[str, int] = defaultdict(int)
    for action in done:
        by[action.action] += 1
    changed = {a.record_id for a in done if a.action in ("merge", "supersede", "expire")}
    return ConsolidationCounts(
        merged=by["merge"],
        superseded=by["supersede"],
        expired=by["expire"],
        unpinned=by["unpin"],
        kept=active - len(changed),
        skipped=len(actions) - len(done),
    )
